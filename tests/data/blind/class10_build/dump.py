import nbformat,sys
nb=nbformat.read(sys.argv[1],as_version=4)
for i,c in enumerate(nb.cells):
    md=c.metadata.get('nbgrader',{})
    print(f"=== [{i}] {c.cell_type} id={c.get('id')} grade_id={md.get('grade_id')} solution={md.get('solution')} grade={md.get('grade')} locked={md.get('locked')}")
    print(c.source)
