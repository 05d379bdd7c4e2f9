#!/usr/bin/env python3
"""Where the bytes of a wasm go, grouped by crate and module (bench/findings.md "Size").

Usage: python3 bench/wasm-size.py A.wasm [B.wasm ...]  -> a markdown table, one column per file.
Give it the output of wasm-bindgen before wasm-opt: it still has the "name" section. Function
bodies are attributed by their demangled path, the data section split into printable strings
and the rest. twiggy top shows the same per-function sizes, ungrouped."""
import collections
import re
import sys

def leb(d,i):
    r=0;s=0
    while True:
        b=d[i];i+=1;r|=(b&0x7f)<<s;s+=7
        if b<0x80: return r,i
def analyze(f):
    d=open(f,'rb').read()
    i=8; secs={}; nimports=0; bodies=[]; names={}; data=0
    while i<len(d):
        sid=d[i];i+=1
        n,i=leb(d,i); end=i+n
        if sid==2:
            cnt,j=leb(d,i)
            for _ in range(cnt):
                l,j=leb(d,j); j+=l; l,j=leb(d,j); j+=l
                k=d[j]; j+=1
                if k==0: _,j=leb(d,j); nimports+=1
                elif k==1: j+=1; fl,j=leb(d,j); _,j=leb(d,j); 
                elif k==2: fl,j=leb(d,j); _,j=leb(d,j)
                elif k==3: j+=2
                if k==1 and fl&1: _,j=leb(d,j)
                if k==2 and fl&1: _,j=leb(d,j)
        elif sid==10:
            cnt,j=leb(d,i)
            for _ in range(cnt):
                sz,j2=leb(d,j); bodies.append(sz+(j2-j)); j=j2+sz
        elif sid==11: data=n
        elif sid==0:
            l,j=leb(d,i); nm=d[j:j+l].decode(); j+=l
            if nm=='name':
                while j<end:
                    sub=d[j]; j+=1; sl,j=leb(d,j); se=j+sl
                    if sub==1:
                        cnt,k=leb(d,j)
                        for _ in range(cnt):
                            idx,k=leb(d,k); l,k=leb(d,k); names[idx]=d[k:k+l].decode('utf8','replace'); k+=l
                    j=se
        i=end
    return [(names.get(nimports+ix,'?%d'%ix), sz) for ix,sz in enumerate(bodies)], data
def cat(n):
    s=n
    rules=[('chrono','chrono'),('uuid','uuid'),('getrandom','getrandom'),('talc','allocator (talc)'),('dlmalloc','allocator'),('zmij','zmij (float print)'),
      ('wasm_bindgen','wasm-bindgen/js-sys'),('js_sys','wasm-bindgen/js-sys'),('console_error_panic_hook','panic hook'),
      ('core::fmt','core::fmt'),('<core::fmt','core::fmt'),('alloc::fmt','core::fmt'),('fmt::Display','core::fmt'),('fmt::Debug','core::fmt'),('fmt::Write','core::fmt'),('fmt::num','core::fmt'),('fmt::float','core::fmt'),
      ('core::num::flt2dec','float fmt/parse'),('core::num::dec2flt','float fmt/parse'),('dec2flt','float fmt/parse'),('flt2dec','float fmt/parse'),
      ('core::panicking','panics'),('panic','panics'),('core::slice::index','panics'),('core::str::slice_error','panics'),('core::option::expect','panics'),('core::result::unwrap_failed','panics'),
      ('alloc::collections::btree','std collections (btree)'),('btree','std collections (btree)'),('hashbrown','std collections (hash)'),('alloc::raw_vec','alloc (vec/string growth)'),('alloc::vec','alloc (vec/string growth)'),('RawVec','alloc (vec/string growth)'),
      ('serde','serde'),
      ('core::str','core str/char/unicode'),('core::unicode','core str/char/unicode'),('core::char','core str/char/unicode'),('alloc::str','core str/char/unicode'),('alloc::string','core str/char/unicode'),
      ('core::slice::sort','sort'),('core::slice','core slice/iter'),('core::iter','core slice/iter'),
      ('stepline::','stepline'),]
    for k,v in rules:
        if k in s: 
            if v=='stepline':
                m=re.search(r'stepline::(\w+)(?:::(\w+))?',s)
                return 'stepline::'+m.group(1)+('::'+m.group(2) if m.group(1) in ('wasm','model','session','envelope','json','snapshot','continuation') and m.group(2) else '')
            return v
    return 'other'
REP=[('$LT$','<'),('$GT$','>'),('$u20$',' '),('$C$',','),('$RF$','&'),('$BP$','*'),('$u7b$','{'),('$u7d$','}'),('$u5b$','['),('$u5d$',']'),('$u27$',"'"),('$u3b$',';'),('$u2b$','+'),('$u22$','"'),('$LP$','('),('$RP$',')'),('..','::')]
def demangle(n):
    if not n.startswith('_ZN'): return n
    i=3; parts=[]
    while i<len(n) and n[i]!='E':
        m=re.match(r'\d+',n[i:])
        if not m: break
        l=int(m.group()); i+=len(m.group()); parts.append(n[i:i+l]); i+=l
    if parts and re.fullmatch(r'h[0-9a-f]{16}',parts[-1]): parts=parts[:-1]
    s='::'.join(parts)
    for a,b in REP: s=s.replace(a,b)
    s=s.replace('_<','<').replace('::_','::')
    return s
def crate_of(s):
    # leading "<impl X>" or "<X as Y>" -> X's crate
    t=s.lstrip('_<&* ')
    if t.startswith('impl '): t=t[5:]
    t=t.lstrip('<&* ')
    if t.startswith('dyn '): t=t[4:]
    if t.startswith('mut '): t=t[4:]
    m=re.match(r'[A-Za-z_][A-Za-z0-9_]*',t)
    return m.group() if m else '?'
def group(d):
    c=crate_of(d)
    if c=='stepline':
        m=re.match(r'[<_&* ]*(?:impl )?[<&* ]*stepline::(\w+)',d); mod=m.group(1) if m else '?'
        if mod=='wasm': return 'ours: src/wasm (the JS boundary)'
        if mod in ('session','envelope','json','model','snapshot','continuation','lint'): return 'ours: src/'+mod
        return 'ours: other (php, sort, error, lib)'
    if c in ('core','alloc','std'):
        for k,v in [('dec2flt','float parsing (core dec2flt)'),('flt2dec','float printing (core)'),('fmt','core::fmt, format!, to_string'),('panick','panics, unwrap and bounds messages'),('slice::index','panics, unwrap and bounds messages'),('slice_error','panics, unwrap and bounds messages'),('unwrap_failed','panics, unwrap and bounds messages'),('expect','panics, unwrap and bounds messages'),('btree','BTreeMap/BTreeSet (generic, per type)'),('raw_vec','Vec/String (generic, per type)'),('vec::','Vec/String (generic, per type)'),('string::','Vec/String (generic, per type)'),('slice::sort','sorting'),('thread::local','thread_local'),('alloc::alloc','allocator (talc + shims)'),('unicode','str/char/unicode'),('str::','str/char/unicode'),('char::','str/char/unicode'),('iter','iterators (generic, per type)')]:
            if k in d: return v
        return 'other std/core (drop glue, clone, cmp, ptr, num)'
    return {'chrono':'chrono','uuid':'uuid + getrandom','getrandom':'uuid + getrandom','talc':'allocator (talc + shims)','zmij':'float printing (zmij)',
            'wasm_bindgen':'wasm-bindgen + js-sys runtime','js_sys':'wasm-bindgen + js-sys runtime','console_error_panic_hook':'panics, unwrap and bounds messages','serde_core':'serde runtime','serde':'serde runtime',
            'f64':'float printing (core)' if 'fmt' in d else 'other std/core (drop glue, clone, cmp, ptr, num)'}.get(c,'other std/core (drop glue, clone, cmp, ptr, num)' if c in ('T','A','u32','u64','i64','i32','char','str','bool','usize','u8','u16','i8','i16','isize') else 'wasm-bindgen exports and shims')
def data_of(f):
    d=open(f,'rb').read(); i=8
    while i<len(d):
        sid=d[i];i+=1;n,i=leb(d,i)
        if sid==11: return d[i:i+n]
        i+=n
    return b''
cols=sys.argv[1:]
res=[]
for f in cols:
    fns,_=analyze(f); by=collections.Counter()
    for n,s in fns: by[group(re.sub(r'::h[0-9a-f]{16}$','',demangle(n)))]+=s
    dat=data_of(f); by['data: strings (messages, names, keys)']=sum(len(x) for x in re.findall(rb'[\x20-\x7e]{6,}',dat)); by['data: tables and other bytes']=len(dat)-by['data: strings (messages, names, keys)']
    res.append((by,sum(s for _,s in fns)+len(dat)))
keys=sorted(set().union(*[r[0].keys() for r in res]),key=lambda k:-res[0][0].get(k,0))
print('| where | '+' | '.join(['%s'%c for c in cols])+' |'); print('|---|'+'---:|'*len(cols))
for k in keys: print('| %s | '%k+' | '.join('{:,} ({:.1f}%)'.format(r[0].get(k,0),100*r[0].get(k,0)/r[1]) for r in res)+' |')
print('| total (code + data) | '+' | '.join('{:,}'.format(r[1]) for r in res)+' |')
