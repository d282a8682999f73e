import time, sys
sys.path.insert(0, '.')
from nbtools import *
from sols_ref import REF
for ps in PSS:
    t=time.time()
    e = run_nb(make_nb(ps, REF[ps]), "/tmp")
    print(ps, e, round(time.time()-t,1))
