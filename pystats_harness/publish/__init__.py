"""``invoke publish``: a static site from the results store (docs/publish.md), like asv's publish: an index of
runs with their verdicts, a page per run (a diff's flagged changes first), and a page per headline metric
plotted over commit date. Pages are planned by pure functions from the store's records
(:mod:`~pystats_harness.publish.pages`, :mod:`~pystats_harness.publish.metric_page`) as reports, written by
the reports layer in HTML (and the plots in PNG) into a staging folder that is renamed into place when
complete (:mod:`~pystats_harness.publish.site`)."""

from pystats_harness.publish.site import Site, check_request, publish_site

__all__ = ["Site", "check_request", "publish_site"]
