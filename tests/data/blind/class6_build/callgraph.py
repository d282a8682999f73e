"""Static call graph of a student's solution code: which functions reference which names."""
import ast


def defined_refs(sources):
    """{qualified name: set of names/attributes referenced in its body}."""
    refs = {}
    for src in sources:
        tree = ast.parse(src)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                refs[node.name] = _names(node)
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef):
                        refs[f"{node.name}.{item.name}"] = _names(item) | {f"{node.name}.{a}" for a in _attrs(item)}
    return refs


def _names(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _attrs(node):
    return {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name) and n.value.id == "self"}


def callers(sources, target):
    """All defined functions that reference target directly or through another defined function."""
    refs = defined_refs(sources)
    out, frontier = set(), {target}
    while frontier:
        new = {f for f, r in refs.items() if r & frontier and f not in out and f != target}
        out |= new
        frontier = new
    return out
