"""One home for reports: what a run shows, in every format it is written in.

A capability turns its result (one value: a validation, a bisect, a history, a collect's trust
table, a comparison) into a :class:`Report` (``to_report`` beside its result) and writes it with
:func:`write_report` (a run folder) or :func:`write_files` (the paths a user asked for). Each format
is one module here with one ``render(report) -> bytes | None``; writing, atomically, happens in
:mod:`pystats_harness.reports.write` alone. A new format is one module, one member of :class:`Format`
and one line in ``write.RENDERERS``.
"""

from pystats_harness.reports.report import Format, Report
from pystats_harness.reports.write import output_file, output_folder, write_files, write_report

__all__ = ["Format", "Report", "output_file", "output_folder", "write_files", "write_report"]
