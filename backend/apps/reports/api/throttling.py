from apps.core.throttling import SettingRateThrottle


class PublicReportThrottle(SettingRateThrottle):
    """Per client IP, for every public report endpoint together (LATENCYLAB_PUBLIC_REPORT_RATE)."""

    scope = "public_report"
    rate_setting = "PUBLIC_REPORT_RATE"
