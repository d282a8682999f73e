"""Print the markdown bug table for REPORT.md from labels.json."""
import json
rows = json.load(open("/work/blind5/class5/labels.json"))
print("| student | ps | cell | function | passes visible | also affects |")
print("|---|---|---|---|---|---|")
for r in rows:
    if r["mistake"]:
        print(f"| {r['student']} | {r['ps']} | {r['cell']} | {r['function']} | {r['passes_visible_tests']} | {', '.join(r['also_affects'])} |")
