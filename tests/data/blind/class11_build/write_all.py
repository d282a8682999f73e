from build import *
for st in STUDENTS:
    for ps in PSS:
        nb = fill(ps, sources_for(st))
        os.makedirs(f"{OUT}/{st}/{ps}", exist_ok=True)
        nbformat.write(nb, f"{OUT}/{st}/{ps}/{ps}.ipynb")
print("written")
