"""Build class14: fill solution cells, execute once (sequentially), record visible-test errors,
save without outputs, write labels.json.  Usage: python build.py [student ...]"""
import json, os, sys, copy
import nbformat
from nbclient import NotebookClient

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from base import S1
from styles import S2, S3, S4
from bugs import BUGS, BASES, PS

ROOT = "/work/blind14"
RELEASE = f"{ROOT}/release"
OUT = f"{ROOT}/class14"
CORRECT = {"blind14_s1": S1, "blind14_s2": S2, "blind14_s3": S3, "blind14_s4": S4}
STUDENTS = list(CORRECT) + list(BASES)


def solutions_for(student):
    if student in CORRECT:
        return dict(CORRECT[student])
    sol = dict(BASES[student])
    for b in BUGS:
        if b["student"] == student:
            assert b["cell"] in sol
            sol[b["cell"]] = b["code"]
    return sol


def fill(nb, sol):
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            gid = meta["grade_id"]
            cell.source = sol[gid].rstrip("\n")
    return nb


def errors_by_cell(nb):
    res = {}
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.cell_type != "code" or not gid:
            continue
        for o in cell.get("outputs", []):
            if o.get("output_type") == "error":
                res[gid] = f"{o['ename']}: {o['evalue']}"
    return res


def clear(nb):
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        cell.metadata.pop("execution", None)
    return nb


def main(students):
    results_path = f"{HERE}/results.json"
    results = json.load(open(results_path)) if os.path.exists(results_path) else {}
    for st in students:
        sol = solutions_for(st)
        for ps in PS.values():
            nb = nbformat.read(f"{RELEASE}/{ps}/{ps}.ipynb", as_version=4)
            fill(nb, sol)
            d = f"{OUT}/{st}/{ps}"
            os.makedirs(d, exist_ok=True)
            run = copy.deepcopy(nb)
            client = NotebookClient(run, timeout=60, kernel_name="python3", allow_errors=True,
                                    resources={"metadata": {"path": d}})
            client.execute()
            errs = errors_by_cell(run)
            results.setdefault(st, {})[ps] = errs
            print(st, ps, json.dumps(errs)[:600], flush=True)
            nbformat.write(clear(nb), f"{d}/{ps}.ipynb")
            json.dump(results, open(results_path, "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1:] or STUDENTS)
