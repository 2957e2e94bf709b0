"""The error-kind table (error-kinds.json): every kind has a status and exactly one party
to blame, and the README's table says the same."""

from latencylab_contract import BLAMES, blame_of, contract_dir, error_kinds


def test_every_kind_has_a_status_a_blame_and_a_meaning():
    kinds = error_kinds()
    assert set(kinds) >= {"device_lost", "device_not_ready", "timeout", "build_failure", "malformed_result",
                          "link_unavailable", "lab_fault", "runner_fault", "target_unreachable", "test_failure",
                          "lease_expired"}
    for row in kinds.values():
        assert row["blame"] in BLAMES
        assert row["status"] in ("failed", "infra_error")
        assert row["meaning"]


def test_only_device_faults_blame_the_device_and_customer_faults_fail_the_run():
    assert {kind for kind in error_kinds() if blame_of(kind) == "device"} == {"device_lost", "device_not_ready",
                                                                              "timeout"}
    assert {kind for kind in error_kinds() if blame_of(kind) == "lab"} == {"build_failure", "malformed_result",
                                                                           "link_unavailable", "lab_fault"}
    assert blame_of("target_unreachable") == "customer_target"
    assert error_kinds()["target_unreachable"]["status"] == "failed"
    assert [kind for kind, row in error_kinds().items() if not row["runner_reports"]] == ["lease_expired"]


def test_the_readme_table_lists_every_kind_with_its_status_and_blame():
    readme = (contract_dir().parent / "README.md").read_text()
    for kind, row in error_kinds().items():
        if row["runner_reports"]:
            assert f"| `{kind}` | `{row['status']}` | {row['blame']} |" in readme, kind
