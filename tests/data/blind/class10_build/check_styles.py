import sys; sys.path.insert(0,'.')
from nbtools import *
from sols_styles import S1, S2
from sols_styles2 import S3, S4
for name, S in [("s1",S1),("s2",S2),("s3",S3),("s4",S4)]:
    for ps in PSS:
        e = run_nb(make_nb(ps, S[ps]), "/work/blind10/class10_build")
        print(name, ps, e, flush=True)
