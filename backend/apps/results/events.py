"""Events the results app publishes (apps.core.events); payload: comparison_id (str)."""

MEASUREMENTS_IMPORTED = "results.measurements_imported"  # an import created an analysing comparison
