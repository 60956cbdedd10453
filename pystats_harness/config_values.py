"""The checks a setting's value passes on its way into :class:`~pystats_harness.config.Settings`: each
turns a bad value into one line (ConfigError, exit 2) naming the setting and what to write instead."""

from __future__ import annotations

import re
from typing import Any

from pystats_harness.errors import ConfigError


def _as_bool(key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise ConfigError(f"setting pystats.{key}={value!r} is not a boolean; use true or false")


def _as_choice(key: str, value: Any, choices: tuple[str, ...]) -> str:
    if (text := str(value).strip()) not in choices:
        raise ConfigError(f"setting pystats.{key}={value!r} is not one of: {', '.join(choices)}")
    return text


def _as_int(key: str, value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ConfigError(f"setting pystats.{key}={value!r} is not an integer") from None


def _as_cache_size(key: str, value: Any) -> str:
    if (text := str(value).strip()) and not re.fullmatch(r"(?i)\d+(\.\d+)?\s*[kmgt]?i?b?", text):
        raise ConfigError(
            f"setting pystats.{key}={value!r} is not a size; write e.g. 500M, 20G or 1.5T (empty: no limit)"
        )
    return text


#: Bytes per unit of a size setting; the engine refuses a memory limit under 6 MiB.
_UNITS = {"": 1, "b": 1, "k": 1024, "m": 1024**2, "g": 1024**3}
_MIN_MEMORY = 6 * 1024**2


def _as_size(key: str, value: Any) -> str:
    """A memory size as the engine reads it: digits and an optional unit b, k, m or g ("512m", "2g")."""
    text = str(value).strip().lower()
    match = re.fullmatch(r"(\d+)([bkmg]?)", text)
    if match is None:
        raise ConfigError(f"setting pystats.{key}={value!r} is not a size; use digits and a unit, like 512m or 2g")
    if int(match[1]) * _UNITS[match[2]] < _MIN_MEMORY:
        raise ConfigError(f"setting pystats.{key}={value!r} is below the engine's minimum memory limit of 6m")
    return text


def _as_positive(key: str, value: Any) -> int:
    if (number := _as_int(key, value)) < 1:
        raise ConfigError(f"setting pystats.{key}={number} must be at least 1")
    return number


def _as_redis_url(key: str, value: Any) -> str:
    """Empty, or ``redis://host:port`` (what ccache's remote storage reads; the port is required)."""
    text = str(value).strip()
    if text and not re.fullmatch(r"redis://[A-Za-z0-9._-]+:\d{1,5}(/\d+)?", text):
        raise ConfigError(
            f"setting pystats.{key}={value!r} is not a Redis address; write redis://HOST:PORT (empty: none)"
        )
    return text


def _as_scheduler(key: str, value: Any) -> str:
    """Empty (this machine) or a Dask scheduler address; ``host:port`` gets the default ``tcp://``."""
    text = str(value).strip()
    if not text:
        return ""
    if "://" not in text:
        text = f"tcp://{text}"
    if not re.fullmatch(r"(tcp|tls)://[A-Za-z0-9._\[\]:-]+:\d{1,5}", text):
        raise ConfigError(
            f"setting pystats.{key}={value!r} is not a Dask scheduler address; write tcp://HOST:PORT (empty: local)"
        )
    return text


def _as_metrics(key: str, value: Any) -> tuple[str, ...]:
    """A comma-separated list of metric names (``*`` for one name segment, ``<family>`` for each family)."""
    names = tuple(dict.fromkeys(n.strip() for n in str(value).split(",") if n.strip()))
    bad = [n for n in names if not re.fullmatch(r"[A-Za-z0-9_.*<>-]+", n)]
    if bad:
        raise ConfigError(
            f"setting pystats.{key}: {bad[0]!r} is not a metric name; write names separated by commas, "
            "e.g. opcode.*.execution_count, family.<family>.specialization.hit_ratio"
        )
    return names
