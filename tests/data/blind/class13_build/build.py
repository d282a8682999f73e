import json, os, sys, copy, time
import nbformat
from nbclient import NotebookClient
sys.path.insert(0, os.path.dirname(__file__))
from sols import C
from bugs import B, BASE, TAG, TESTCELL
REL = '/work/blind13/release'
OUT = '/work/blind13/class13'
PSS = ['ps1_self_attention', 'ps2_multihead_attention', 'ps3_attention_layer',
       'ps4_encoder_decoder_attention', 'ps5_masked_attention']
STUDENTS = [f'blind13_s{i}' for i in range(1, 11)]
ANS_PREFIX = {'blind13_s5': 'My answer: ', 'blind13_s6': '', 'blind13_s7': 'Answer. ', 'blind13_s8': '',
              'blind13_s9': 'I think: ', 'blind13_s10': ''}

def style(student):
    if student in BASE: return BASE[student]
    return int(student.split('s')[-1]) - 1

def cell_src(student, gid, override=None):
    if override is not None:
        src = override
    else:
        src = C[gid][style(student)]
    if student in TAG:
        if gid.endswith('_answer'):
            alt = C[gid][(style(student) + 2) % 4]
            return ANS_PREFIX[student] + alt
        return TAG[student] + '\n' + src
    return src

def build(student, ps, overrides):
    nb = nbformat.read(f'{REL}/{ps}/{ps}.ipynb', 4)
    for c in nb.cells:
        g = c.metadata.get('nbgrader', {})
        gid = g.get('grade_id')
        if g.get('solution') and gid in C:
            c.source = cell_src(student, gid, overrides.get(gid)).rstrip('\n')
        if c.cell_type == 'code':
            c.outputs = []; c.execution_count = None
    return nb

def run(nb):
    nb = copy.deepcopy(nb)
    client = NotebookClient(nb, kernel_name='python3', timeout=120, allow_errors=True,
                            resources={'metadata': {'path': '/tmp'}})
    client.execute()
    res = {}
    for c in nb.cells:
        gid = c.metadata.get('nbgrader', {}).get('grade_id')
        if c.cell_type != 'code' or not gid: continue
        err = None
        for o in c.outputs:
            if o.output_type == 'error':
                err = f"{o.ename}: {str(o.evalue).splitlines()[0] if str(o.evalue) else ''}".strip()
        res[gid] = err
    return res

def main():
    results = {}
    labels = []
    for st in STUDENTS:
        for ps in PSS:
            bugs_here = [b for b in B if b['student'] == st and b['ps'] == ps]
            ov = {b['cell']: b['src'] for b in bugs_here}
            nb = build(st, ps, ov)
            path = f'{OUT}/{st}/{ps}/{ps}.ipynb'
            os.makedirs(os.path.dirname(path), exist_ok=True)
            nbformat.write(nb, path)
            t = time.time()
            r = run(nb)
            results[(st, ps)] = r
            errs = {k: v for k, v in r.items() if v}
            print(st, ps, f'{time.time()-t:.1f}s', errs, flush=True)
            if not bugs_here:
                labels.append(dict(student=st, ps=ps, cell=None, mistake=None))
            for b in bugs_here:
                if len(bugs_here) == 1:
                    single = r
                else:
                    single = run(build(st, ps, {b['cell']: b['src']}))
                    print('   single', b['function'], {k: v for k, v in single.items() if v}, flush=True)
                tc = b['visible_test_cell']
                labels.append(dict(student=st, ps=ps, cell=b['cell'], function=b['function'],
                                   mistake=b['mistake'], passes_visible_tests=single.get(tc) is None,
                                   also_affects=b['also_affects'], visible_test_cell=tc,
                                   visible_test_error=single.get(tc),
                                   visible_test_error_in_submission=r.get(tc)))
            json.dump(labels, open(f'{OUT}/labels.json', 'w'), indent=1)
    json.dump({f'{k[0]}|{k[1]}': v for k, v in results.items()}, open(os.path.dirname(__file__) + '/results.json', 'w'), indent=1)

if __name__ == '__main__':
    main()

def partial(pairs):
    labels = json.load(open(f'{OUT}/labels.json'))
    labels = [l for l in labels if (l['student'], l['ps']) not in pairs]
    for st, ps in pairs:
        bugs_here = [b for b in B if b['student'] == st and b['ps'] == ps]
        nb = build(st, ps, {b['cell']: b['src'] for b in bugs_here})
        nbformat.write(nb, f'{OUT}/{st}/{ps}/{ps}.ipynb')
        r = run(nb); print(st, ps, {k: v for k, v in r.items() if v}, flush=True)
        if not bugs_here: labels.append(dict(student=st, ps=ps, cell=None, mistake=None))
        for b in bugs_here:
            single = r if len(bugs_here) == 1 else run(build(st, ps, {b['cell']: b['src']}))
            tc = b['visible_test_cell']
            labels.append(dict(student=st, ps=ps, cell=b['cell'], function=b['function'],
                               mistake=b['mistake'], passes_visible_tests=single.get(tc) is None,
                               also_affects=b['also_affects'], visible_test_cell=tc,
                               visible_test_error=single.get(tc),
                               visible_test_error_in_submission=r.get(tc)))
    order = {s: i for i, s in enumerate(STUDENTS)}
    labels.sort(key=lambda l: (order[l['student']], PSS.index(l['ps'])))
    json.dump(labels, open(f'{OUT}/labels.json', 'w'), indent=1)
