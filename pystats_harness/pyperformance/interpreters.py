"""What a built interpreter's version says for installing packages into it: a development version or a
release (its C ABI frozen or not), its X.Y, and which pip and build tools install for it.

A release takes the current tools. They are wrong for a development interpreter: pip 26.3 imports
``warnings.deprecated`` on any 3.13 (added to main in November 2023, so ea72c6fe3b of August 2023 lacks
it) and fails to parse a 3.12 development version (``Invalid version: '0.dev0'`` at fb8739f0b6). The
tools of 2023 (pip 23.2.1, setuptools 80.9.0 / wheel 0.45.1 pinned: the newest whose vendored packaging
does not import ``warnings.deprecated`` on a 3.13, new enough for every sdist's build requirements) need,
on a 3.12, what CPython added in spring 2023, and on a 3.11 ``tomllib``; where those are missing, the tools
of 2022 (pip 23.0.1, setuptools 65.6.3), which import ``pkgutil.ImpImporter`` (removed on 2023-04-28,
e1f14643dc, 3.12.0b1).

From 3.14 on a development interpreter takes the current tools again: every 3.14 development commit has
``warnings.deprecated`` and a version pip parses, and the tools of 2023 no longer run on main: its
``importlib.metadata.Distribution`` makes ``locate_file`` abstract, which pip 23.2.1's
``WheelDistribution`` does not define (``Can't instantiate abstract class WheelDistribution``, 3.16.0a0).
"""

from __future__ import annotations

import enum
import re


def is_development(version: str) -> bool:
    """Whether a Python version string is a development one (alpha, beta or between tags: ``3.12.0a3+``).

    Release candidates keep the final ABI (it is frozen at rc1), so their X.Y's release wheels serve."""
    return re.fullmatch(r"\d+\.\d+\.\d+(rc\d+)?", version) is None


def short_version(version: str) -> str:
    """``3.12.0a3+`` -> ``3.12``."""
    return ".".join(version.split(".")[:2])


def x_y(version: str) -> tuple[int, ...]:
    """``3.12.0a3+`` or ``3.12`` -> ``(3, 12)``, for comparing versions."""
    return tuple(int(part) for part in short_version(version).split("."))


class Installer(enum.StrEnum):
    """The pip and build tools a site is made with."""

    CURRENT = "current"  # the release pip, build requirements as each sdist asks
    OF_2023 = "2023"  # pip 23.2.1, setuptools 80.9.0 / wheel 0.45.1 pinned for every build
    OF_2022 = "2022"  # pip 23.0.1 and setuptools 65.6.3 / wheel 0.38.4 pinned for every build


def installer_for(python_version: str, has_imp_importer: bool, has_tomllib: bool = True) -> Installer:
    """Pure: a release or a development 3.14 or later takes the current tools; an older development
    interpreter the tools of 2023 unless they need what it lacks: on a 3.12 development whose ``pkgutil``
    still has ``ImpImporter`` they need a newer 3.12 (``shutil.rmtree(onexc=)``, ``tarfile.data_filter``),
    on a 3.11 development ``tomllib`` (they import it on any 3.11; CPython added it on 2022-03-08): there,
    the tools of 2022 (which import ``ImpImporter``)."""
    version = x_y(python_version)
    if not is_development(python_version) or version >= (3, 14):
        return Installer.CURRENT
    if not has_imp_importer:
        return Installer.OF_2023
    return Installer.OF_2022 if version >= (3, 12) or not has_tomllib else Installer.OF_2023
