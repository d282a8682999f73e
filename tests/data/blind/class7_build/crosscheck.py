import students as S, harness as H, probes as P
for ps in S.PS:
    res={}
    for s in ('s1','s2','s3','s4'):
        ns,_=H.run(ps,S.BASE[s][ps],run_tests=False)
        res[s]=P.evaluate(ps,ns)
    for name in res['s1']:
        for s in ('s2','s3','s4'):
            if name in res[s] and not P.same(res['s1'][name],res[s][name]):
                print(ps,name,s,'DIFF', str(res['s1'][name])[:300], '||', str(res[s][name])[:300])
    for s in res:
        print(ps,s,'EXC:',[ (k,v) for k,v in res[s].items() if isinstance(v,tuple) and v and isinstance(v[0],str)])
