"""Verdict renderings: text (CI logs), JSON (machines), JUnit XML (test reports), Markdown (people)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import Any, TypeGuard

from latencylab_contract.verdict_numbers import MISSING, effect_with_ci, fixed, margin_pct, p_value, signed

from .gate import PASSING, GateResult

FORMATS = ("text", "json", "junit", "markdown")
JSON_SCHEMA = "latencylab.verdict/1"
# Characters XML 1.0 cannot carry at all, even escaped.
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|<>#])")


# --- number formatting -------------------------------------------------------------------


def fmt_ms(value: Any) -> str:
    if not isinstance(value, (int, float)):
        return "–"
    magnitude = abs(value)
    digits = 3 if magnitude < 1 else 2 if magnitude < 10 else 1 if magnitude < 100 else 0
    return f"{value:.{digits}f} ms"


def fmt_change(verdict: dict[str, Any]) -> str:
    """`−4.8 % [−12 %, +1.0 %]`: the change of the median with its 95 % CI, each number by the
    rule the server's summary line uses (latencylab_contract.verdict_numbers)."""
    change = verdict.get("change_pct")
    ratio = verdict.get("ratio")
    if not _is_number(change) and _is_number(ratio):
        change = (ratio - 1.0) * 100.0
    if not _is_number(change):
        return MISSING
    ci = verdict.get("ci95")
    bounds = [(x - 1.0) * 100.0 for x in ci] if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(
        _is_number(x) for x in ci) else None
    return effect_with_ci(change, bounds)


def fmt_p(verdict: dict[str, Any]) -> str:
    p = verdict.get("p_adjusted")
    if not _is_number(p):
        p = verdict.get("p_value")
    return p_value(p) if _is_number(p) else MISSING


def fmt_cliffs(verdict: dict[str, Any]) -> str:
    delta = verdict.get("cliffs_delta")
    if not _is_number(delta):
        return MISSING
    label = verdict.get("cliffs_label")
    return f"{signed(delta)} {label}" if label else signed(delta)


def _is_number(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def short_id(value: Any) -> str:
    return str(value)[:8] if value else "?"


# --- shared descriptions -----------------------------------------------------------------


def baseline_label(verdict: dict[str, Any], result: GateResult) -> str:
    arm = verdict.get("baseline_arm") or "baseline"
    other = verdict.get("baseline_comparison")
    if other:
        ref = result.baseline_ref or (result.document.get("baseline") or {}).get("ref") or short_id(other)
        return f"{arm} ({ref})"
    return str(arm)


def group_label(verdict: dict[str, Any]) -> str:
    return f"{verdict.get('device') or 'all devices'} / {verdict.get('network_profile') or 'all profiles'}"


def verdict_summary(verdict: dict[str, Any]) -> str:
    """The server's one-line summary of a verdict (docs/methodology.md §8)."""
    return str(verdict.get("summary") or "")


def metric_words(gate: dict[str, Any]) -> str:
    """The gate's metric as the server words it, with its name: `per-request time (total_ms)`,
    `series time, periods 3–30 (series_ms)` (a server before metric_label: the name alone)."""
    metric = str(gate.get("metric") or "total_ms")
    label = gate.get("metric_label")
    return f"{label} ({metric})" if label else metric


def gate_description(result: GateResult) -> str:
    gate = result.document.get("gate") or {}
    statistic = gate.get("statistic", "median")
    margin = gate.get("margin_pct")
    alpha = gate.get("alpha")
    text = f"{statistic} {metric_words(gate)}"
    if margin is not None:
        text += f", margin ±{margin:g} % (at least 2 ms)"
    if alpha is not None:
        text += f", α {alpha:g}"
    return text


def baseline_description(result: GateResult) -> str:
    baseline = result.document.get("baseline") or {}
    if baseline.get("comparison"):
        ref = result.baseline_ref or baseline.get("ref")
        same_arm = " (same-named arms)" if not baseline.get("arm") else f" arm {baseline['arm']}"
        where = f"comparison {short_id(baseline['comparison'])}"
        if ref:
            where = f"{ref}, {where}"
        return f"{where}{same_arm}"
    if baseline.get("arm"):
        return f"arm {baseline['arm']} of this comparison"
    return result.baseline_ref or "the baseline arm"


def outcome_sentence(result: GateResult) -> str:
    if result.fail_on == "never":
        return f"exit {result.exit_code} (--fail-on never)"
    if result.outcome in ("inconclusive", "no_data") and result.fail_on == "regression":
        return f"exit {result.exit_code}; --fail-on inconclusive would exit 2"
    return f"exit {result.exit_code}"


def sorted_verdicts(result: GateResult) -> list[dict[str, Any]]:
    """The verdicts that decided the server's overall outcome first (a reader sees what
    blocks the merge before what helped), the others in the server's order."""
    return sorted(result.verdicts, key=lambda v: (_beneath(v), v.get("outcome") != result.outcome))


def _beneath(verdict: dict[str, Any]) -> bool:
    """A row beneath a pooled device class (one device of it, or one period of a series):
    shown, but the outcome reads the class."""
    return verdict.get("scope", "pooled") != "pooled"


def beside(result: GateResult) -> dict[str, Any] | None:
    """The other metric's verdicts, which the server puts beside the gate's and which never
    gate: per-request time beside series time or page load, and the reverse."""
    other = result.document.get("beside")
    return other if isinstance(other, dict) and other.get("verdicts") else None


def beside_sentence(result: GateResult) -> str:
    """`per-request time (total_ms), beside it, says regression — not what the gate judged`."""
    other = beside(result)
    if other is None:
        return ""
    outcome = str(other.get("outcome") or "no_data").replace("_", " ")
    text = f"{metric_words(other)}, beside it, says {outcome}"
    if other.get("disagrees"):
        gate = result.document.get("gate") or {}
        text += f"; not gating: the gate judged {gate.get('metric_label') or gate.get('metric', 'total_ms')}"
    return text


def _outcome_of(verdict: dict[str, Any]) -> str:
    return str(verdict.get("outcome") or "no_data")


def _more_blocks(verdict: dict[str, Any]) -> str:
    needed = verdict.get("more_blocks_needed")
    text = f"about {needed} more blocks needed" if isinstance(needed, int) and needed > 0 else ""
    reach = _blocks_to_decide(verdict)
    return f"{text}; {reach}" if text and reach else (text or reach)


def _blocks_to_decide(verdict: dict[str, Any]) -> str:
    """"regression at 9 blocks per device, equivalent not at this effect": how far each
    outcome is at the observed per-block mean and spread (servers before it send none)."""
    by_outcome = verdict.get("blocks_to_decide")
    if not isinstance(by_outcome, dict):
        return ""
    reachable = [f"{outcome} at {n} blocks per device" for outcome in ("regression", "improvement", "equivalent")
                 if isinstance(n := by_outcome.get(outcome), int)]
    return ", ".join(reachable)


def widened_margin(verdict: dict[str, Any], gate: dict[str, Any]) -> str:
    """The 2 ms floor widens the margin on fast requests (0.5 ms medians: ±400 %); a
    reader must see that "equivalent" then means "within 2 ms", not "within 5 %". Servers
    that say so in the summary line itself (`; margin ±44 %: …`) need no second note."""
    if "; margin ±" in str(verdict.get("summary") or ""):
        return ""
    margin, configured = verdict.get("margin"), gate.get("margin_pct")
    if isinstance(margin, (int, float)) and isinstance(configured, (int, float)) and margin * 100 > configured + 0.05:
        return f"margin widened to ±{margin_pct(margin * 100)} by the 2 ms floor"
    return ""


def dashboard_url(result: GateResult) -> str | None:
    return result.document.get("url")


# --- text --------------------------------------------------------------------------------


def history_line(look: dict[str, Any], *, last: bool = False) -> str:
    """One look of a run-until-decided comparison: `look 2 at 12 blocks/device (α 0.0023):
    inconclusive, ratio 1.04 [0.97, 1.12], p 0.21 → more blocks`."""
    alpha = look.get("alpha")
    text = f"look {look.get('look')} at {look.get('blocks_per_device')} blocks/device"
    text += f" (α {alpha:.2g})" if isinstance(alpha, (int, float)) else ""
    text += f": {str(look.get('outcome') or '?').replace('_', ' ')}"
    ratio, ci = look.get("ratio"), look.get("ci95")
    if isinstance(ratio, (int, float)):
        text += f", ratio {fixed(ratio, 3)}"
        if isinstance(ci, list) and len(ci) == 2 and all(isinstance(x, (int, float)) for x in ci):
            text += f" [{fixed(ci[0], 3)}, {fixed(ci[1], 3)}]"
    if isinstance(look.get("p_value"), (int, float)):
        text += f", p {p_value(look['p_value'])}"
    if look.get("decision") == "continue":
        text += " → more blocks"
    elif last or look.get("decision") == "stop":
        text += " → stopped"
    return text


def history_lines(result: GateResult) -> list[str]:
    history = [h for h in (result.document.get("history") or []) if isinstance(h, dict)]
    if not history:
        return []
    return [f"run until decided, {_plural(len(history), 'look')}:",
            *(f"  {history_line(h, last=i == len(history) - 1)}" for i, h in enumerate(history))]


def render_text(result: GateResult) -> str:
    doc = result.document
    lines = [
        f"LatencyLab: {doc.get('name') or 'comparison'} (comparison {doc.get('comparison')})",
        f"gate: {gate_description(result)}; baseline: {baseline_description(result)}",
    ]
    verdicts = sorted_verdicts(result)
    width = max([len(_outcome_of(v)) for v in verdicts] + [12])
    for verdict in verdicts:
        word = _outcome_of(verdict)
        indent = "    └ " if _beneath(verdict) else "  "
        line = f"{indent}{word:<{width}}  {verdict_summary(verdict)}"
        widened = widened_margin(verdict, doc.get("gate") or {})
        disagree = "devices disagree; see the rows beneath" if verdict.get("devices_disagree") else ""
        extra = [x for x in (disagree, _more_blocks(verdict), widened) if x]
        if extra:
            line += f" ({'; '.join(extra)})"
        lines.append(line)
    if not verdicts:
        lines.append(f"  no verdicts: {result.reason or 'nothing to compare'}")
    if other := beside(result):
        lines.append(f"{beside_sentence(result)}:")
        rows = [v for v in other["verdicts"] if isinstance(v, dict)]
        lines += [f"  {_outcome_of(v):<{width}}  {verdict_summary(v)}" for v in rows]
    lines += history_lines(result)
    if url := dashboard_url(result):
        lines.append(f"dashboard: {url}")
    lines += [f"warning: {w}" for w in result.warnings]
    lines.append(f"verdict: {result.outcome} ({outcome_sentence(result)})")
    return "\n".join(lines) + "\n"


# --- json --------------------------------------------------------------------------------


def _counts(result: GateResult) -> dict[str, int]:
    counts = {name: 0 for name in ("regression", "inconclusive", "improvement", "equivalent", "no_data")}
    for verdict in result.verdicts:
        word = _outcome_of(verdict)
        counts[word] = counts.get(word, 0) + 1
    return counts


def render_json(result: GateResult, *, version: str) -> str:
    doc = result.document
    payload = {
        "schema": JSON_SCHEMA,
        "generator": f"latencylab {version}",
        "comparison": doc.get("comparison"),
        "name": doc.get("name"),
        "status": doc.get("status"),
        "url": doc.get("url"),
        "outcome": result.outcome,
        "exit_code": result.exit_code,
        "fail_on": result.fail_on,
        "baseline_ref": result.baseline_ref,
        "baseline": doc.get("baseline"),
        "gate": doc.get("gate"),
        "server_outcome": doc.get("outcome"),
        "outcome_reason": doc.get("outcome_reason"),
        "counts": _counts(result),
        "warnings": result.warnings,
        "error": None,
        "verdicts": doc.get("verdicts") or [],
        "beside": doc.get("beside"),
        "history": doc.get("history") or [],
    }
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"


# --- junit -------------------------------------------------------------------------------


def _xml_text(value: Any) -> str:
    return _XML_ILLEGAL.sub("\ufffd", str(value))


def _xml_document(root: ET.Element) -> str:
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def render_junit(result: GateResult) -> str:
    doc = result.document
    suite = ET.Element("testsuite", name="latencylab")
    properties = ET.SubElement(suite, "properties")
    for name, value in (
        ("comparison", doc.get("comparison")),
        ("name", doc.get("name")),
        ("url", doc.get("url")),
        ("outcome", result.outcome),
        ("exit_code", result.exit_code),
        ("fail_on", result.fail_on),
        ("baseline", baseline_description(result)),
        ("gate", gate_description(result)),
        ("beside", beside_sentence(result) or None),
    ):
        if value is not None:
            ET.SubElement(properties, "property", name=name, value=_xml_text(value))
    failures = skipped = 0
    for verdict in result.verdicts:
        metric = verdict.get("metric") or (doc.get("gate") or {}).get("metric", "total_ms")
        name = f"{verdict.get('arm')} vs {baseline_label(verdict, result)} {metric}"
        case = ET.SubElement(
            suite,
            "testcase",
            classname=_xml_text(f"{verdict.get('device') or 'all'}/{verdict.get('network_profile') or 'all'}"),
            name=_xml_text(name),
            time="0",
        )
        summary = verdict_summary(verdict)
        word = _outcome_of(verdict)
        body = summary + (f"\n{doc['url']}" if doc.get("url") else "")
        if word in PASSING:
            ET.SubElement(case, "system-out").text = _xml_text(f"{word}: {body}")
        elif word == "regression":
            failures += 1
            element = ET.SubElement(case, "failure", message=_xml_text(summary), type="regression")
            element.text = _xml_text(body)
        else:
            message = summary if not _more_blocks(verdict) else f"{summary} ({_more_blocks(verdict)})"
            if result.fail_on == "inconclusive":
                failures += 1
                element = ET.SubElement(case, "failure", message=_xml_text(message), type=word)
                element.text = _xml_text(body)
            else:
                skipped += 1
                ET.SubElement(case, "skipped", message=_xml_text(f"{word}: {message}"))
    suite.set("tests", str(len(result.verdicts)))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    suite.set("skipped", str(skipped))
    suite.set("time", "0")
    return _xml_document(suite)


# --- markdown ----------------------------------------------------------------------------


def md(value: Any) -> str:
    """Escapes text for a GitHub-flavoured Markdown table cell or paragraph."""
    text = " ".join(_XML_ILLEGAL.sub("", str(value)).split())
    return _MD_SPECIAL.sub(r"\\\1", text)


def _md_code(value: Any) -> str:
    text = " ".join(str(value).split()).replace("`", "'").replace("|", "/")
    return f"`{text}`"


def _plural(n: int, word: str) -> str:
    if n == 1:
        return f"1 {word}"
    return f"{n} {word}es" if word.endswith("s") else f"{n} {word}s"


MARKDOWN_MARKER = "<!-- latencylab-verdict -->"


def _nb(text: str) -> str:
    """Keeps a number with its unit when a narrow table wraps (PR comments are ~900 px wide)."""
    return text.replace(" ms", "\u00a0ms").replace(" %", "\u00a0%").replace("< ", "<\u00a0")


def _md_gate(result: GateResult) -> str:
    gate = result.document.get("gate") or {}
    text = f"{md(gate.get('statistic', 'median'))} of "
    if gate.get("metric_label"):
        text += f"**{md(gate['metric_label'])}** ({_md_code(gate.get('metric', 'total_ms'))})"
    else:
        text += _md_code(gate.get("metric", "total_ms"))
    if gate.get("margin_pct") is not None:
        text += f", margin ±{gate['margin_pct']:g} % (at least 2 ms)"
    if gate.get("alpha") is not None:
        text += f", α = {gate['alpha']:g}"
    return text


def _md_baseline(result: GateResult) -> str:
    baseline = result.document.get("baseline") or {}
    if baseline.get("comparison"):
        ref = result.baseline_ref or baseline.get("ref")
        other = baseline["comparison"]
        url = result.document.get("url") or ""
        link = f"comparison {_md_code(short_id(other))}"
        if url and "/comparisons/" in url:
            link = f"[{link}]({url.rsplit('/comparisons/', 1)[0]}/comparisons/{other})"
        arms = f"arm {_md_code(baseline['arm'])}" if baseline.get("arm") else "the same-named arms"
        return f"{arms} of {_md_code(ref) + ', ' if ref else ''}{link}"
    if baseline.get("arm"):
        return f"arm {_md_code(baseline['arm'])} of this comparison"
    return md(result.baseline_ref or "the baseline arm")

HOW_TO_READ = (
    "<details><summary>How to read this</summary>\n"
    "\n"
    "- **change** is the arm's {statistic} relative to the baseline's, with a 95 % confidence interval from a"
    " hierarchical bootstrap (devices → blocks → requests). Negative means faster.\n"
    "- **regression**: the whole interval lies above +{margin} %, the difference is significant"
    " (Holm-adjusted p < {alpha}) and not negligible (\\|Cliff's δ\\| ≥ 0.147). **improvement** is the mirror image.\n"
    "- **equivalent**: the 90 % interval lies within ±{margin} %: shown to make no practical difference.\n"
    "- **inconclusive**: neither could be shown; more blocks narrow the interval.\n"
    "- **metric**: the gate judged {metric}: what the workload is about (a series' time, a page's load, or"
    " each request's); a metric shown beside it does not gate.\n"
    "- **Cliff's δ** runs from −1 (the arm is always faster) to +1 (always slower): below 0.147 in size is"
    " negligible, below 0.33 small, below 0.474 medium, otherwise large.\n"
    "- **p** is the Holm-adjusted p-value of the paired test on per-block log-ratios.\n"
    "\n"
    "</details>\n"
)


def render_markdown(result: GateResult) -> str:
    doc = result.document
    gate = doc.get("gate") or {}
    verdicts = sorted_verdicts(result)
    counts = _counts(result)
    word = result.outcome.replace("_", " ")
    gate_state = "fails" if result.exit_code else "passes"

    lines = [MARKDOWN_MARKER, f"## LatencyLab: {word}", ""]
    tally = [_plural(counts[k], k.replace("no_data", "check without data")) for k in counts if counts[k]]
    checks = len(result.verdicts)
    intro = f"**{md(doc.get('name') or 'Comparison')}**: "
    intro += (f"{', '.join(tally)} in {_plural(checks, 'check')}." if checks
              else f"no verdicts: {md(result.reason or 'nothing to compare')}.")
    intro += f" The gate {gate_state} ({md(outcome_sentence(result))})."
    lines += [intro, ""]
    lines += [f"Gate: {_md_gate(result)}. Baseline: {_md_baseline(result)}.", ""]

    baselines = {baseline_label(v, result) for v in verdicts}
    one_baseline = len(baselines) == 1
    if verdicts:
        lines.append("| arm | device / network | median | change (95 % CI) | Cliff's δ | p | verdict |")
        lines.append("|---|---|--:|--:|--:|--:|---|")
        for verdict in verdicts:
            arm = _md_code(verdict.get("arm"))
            if not one_baseline:
                arm += f" vs {_md_code(baseline_label(verdict, result))}"
            median = fmt_ms(verdict.get("median_ms"))
            if isinstance(verdict.get("baseline_median_ms"), (int, float)) and median != "–":
                median = f"{median[:-3]} vs {fmt_ms(verdict['baseline_median_ms'])}"
            outcome = _outcome_of(verdict).replace("_", " ")
            emphasise = outcome in ("regression", "inconclusive")
            cell = f"**{outcome}**" if emphasise else outcome
            if more := _more_blocks(verdict):
                cell += f": {more}"
            if widened := widened_margin(verdict, result.document.get("gate") or {}):
                cell += f" ({widened})"
            row = [arm, md(group_label(verdict)), _nb(median), _nb(fmt_change(verdict)), fmt_cliffs(verdict),
                   _nb(fmt_p(verdict)), cell]
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
    if other := beside(result):
        lines += [f"{md(beside_sentence(result)[0].upper() + beside_sentence(result)[1:])}:", ""]
        lines += [f"- {md(_outcome_of(v).replace('_', ' '))}: {_md_code(verdict_summary(v))}"
                  for v in other["verdicts"] if isinstance(v, dict)]
        lines.append("")
    if history := [h for h in (doc.get("history") or []) if isinstance(h, dict)]:
        lines += [f"Run until decided: {_plural(len(history), 'look')}.", ""]
        lines += [f"- {md(history_line(h, last=i == len(history) - 1))}" for i, h in enumerate(history)]
        lines.append("")
    for warning in result.warnings:
        lines += [f"> Warning: {md(warning)}", ""]
    if url := dashboard_url(result):
        lines += [f"[Open the comparison in LatencyLab]({url}) for the charts and every sample.", ""]
    lines.append(
        HOW_TO_READ.format(
            metric=md(metric_words(gate)),
            statistic=md(gate.get("statistic", "median")),
            margin=f"{gate.get('margin_pct', 5):g}",
            alpha=f"{gate.get('alpha', 0.01):g}",
        )
    )
    return "\n".join(lines)


def render(result: GateResult, fmt: str, *, version: str) -> str:
    if fmt == "json":
        return render_json(result, version=version)
    if fmt == "junit":
        return render_junit(result)
    if fmt == "markdown":
        return render_markdown(result)
    return render_text(result)


# --- failures (no verdict) ---------------------------------------------------------------


def render_error(
    fmt: str, *, message: str, exit_code: int, comparison: str | None, url: str | None, version: str, fail_on: str
) -> str:
    """What a report file holds when no verdict could be produced, so CI shows why."""
    if fmt == "json":
        return json.dumps(
            {
                "schema": JSON_SCHEMA,
                "generator": f"latencylab {version}",
                "comparison": comparison,
                "url": url,
                "outcome": "error",
                "exit_code": exit_code,
                "fail_on": fail_on,
                "error": message,
                "verdicts": [],
            },
            indent=2,
            ensure_ascii=False,
        ) + "\n"
    if fmt == "junit":
        suite = ET.Element("testsuite", name="latencylab", tests="1", failures="0", errors="1", skipped="0", time="0")
        case = ET.SubElement(suite, "testcase", classname="latencylab", name="comparison", time="0")
        element = ET.SubElement(case, "error", message=_xml_text(message),
                                type="infrastructure" if exit_code == 3 else "usage")
        element.text = _xml_text(message + (f"\n{url}" if url else ""))
        return _xml_document(suite)
    if fmt == "markdown":
        lines = [MARKDOWN_MARKER, "## LatencyLab: error", ""]
        lines.append(f"No verdict: {md(message)} (exit {exit_code}).")
        if url:
            lines += ["", f"[Open the comparison in LatencyLab]({url})."]
        return "\n".join(lines) + "\n"
    return f"error: {message}\n"
