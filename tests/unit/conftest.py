"""Fixtures shared by unit modules: a small pyperformance data-files tree (MANIFEST, metafiles, run scripts)."""

from __future__ import annotations

from pathlib import Path

import pytest

MANIFEST = """\
[benchmarks]

name\tmetafile
nbody\t<local>
pickle\t<local>
pickle_pure_python\t<local:pickle>
python_startup\t<local>
#hg_startup\t<local>
async_tree\t<local>

[group default]
[group math]
"""


def _bench(root: Path, directory: str, script: str, tool: str = "", extra: dict[str, str] | None = None) -> None:
    d = root / directory
    d.mkdir()
    (d / "pyproject.toml").write_text(f'[project]\nname = "x"\n\n[tool.pyperformance]\n{tool}\n')
    (d / "run_benchmark.py").write_text(script)
    for name, text in (extra or {}).items():
        (d / name).write_text(text)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    (tmp_path / "MANIFEST").write_text(MANIFEST)
    _bench(tmp_path, "bm_nbody", "runner.bench_time_func('nbody', f)\n", 'name = "nbody"\ntags = "math"')
    variant = '[tool.pyperformance]\nname = "pickle_pure_python"\nextra_opts = ["--pure-python", "pickle"]\n'
    _bench(
        tmp_path,
        "bm_pickle",
        "runner.bench_time_func('pickle', f)\n",
        'tags = "serialize"',
        {"bm_pickle_pure_python.toml": variant, "requirements.txt": "six==1.16.0\n"},
    )
    _bench(tmp_path, "bm_python_startup", "runner.bench_command('startup', cmd)\n", 'tags = "startup"')
    _bench(tmp_path, "bm_async_tree", "runner.bench_async_func('t', f)\n", 'tags = "asyncio"')
    _bench(tmp_path, "bm_yaml", "runner.bench_func('yaml', f)\n", 'name = "yaml"')
    return tmp_path
