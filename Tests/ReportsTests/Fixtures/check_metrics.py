"""Parses an exposition with prometheus_client, an independent parser, and prints what it found as JSON.

usage: check_metrics.py openmetrics|prometheus FILE
Exits 1 with the parser's message when the text does not parse.
"""
import json
import math
import sys

from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics_families
from prometheus_client.parser import text_string_to_metric_families as prometheus_families


def number(value):
    """JSON has no NaN or infinities: those go as the strings Swift's decoder is told to read."""
    return value if math.isfinite(value) else str(value)


def main():
    kind, path = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    parse = openmetrics_families if kind == "openmetrics" else prometheus_families
    try:
        families = list(parse(text))
    except Exception as error:  # the parser's own message is the point
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
    out = []
    for family in families:
        out.append({
            "name": family.name,
            "type": family.type,
            "unit": family.unit,
            "help": family.documentation,
            "samples": [{"name": s.name, "labels": s.labels, "value": number(s.value)} for s in family.samples],
        })
    json.dump(out, sys.stdout)


main()
