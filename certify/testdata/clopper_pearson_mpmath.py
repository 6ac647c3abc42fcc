import mpmath as mp
mp.mp.dps = 50
def pmf(n,k,p): return mp.binomial(n,k)*p**k*(1-p)**(n-k)
def tail_ge(n,x,p):  # P(Bin>=x)
    t = pmf(n,x,p); s = t; k = x
    while k < n:
        t = t*(n-k)/(k+1)*p/(1-p); k += 1; s += t
        if t < s*mp.mpf(10)**-55: break
    return s
def tail_le(n,x,p):  # P(Bin<=x)
    t = pmf(n,x,p); s = t; k = x
    while k > 0:
        t = t*k/(n-k+1)*(1-p)/p; k -= 1; s += t
        if t < s*mp.mpf(10)**-55: break
    return s
def bis(f, inc):
    lo, hi = mp.mpf(0), mp.mpf(1)
    for _ in range(120):
        mid = (lo+hi)/2
        v = f(mid)
        if (v < 0) == inc: lo = mid
        else: hi = mid
    return (lo+hi)/2
import sys
for n in (100, 10000):
  for qs in ('0.05/7', '0.05'):
    q = mp.mpf(0.05)/7 if qs=='0.05/7' else mp.mpf(0.05)
    xs = sorted(set([1,2,3,5,10,50,n//10,n//3,n//2,(6*n)//10,(9*n)//10,n-n//100,n-2,n-1,n]))
    for x in xs:
        print('L',x,n,qs,mp.nstr(bis(lambda p: tail_ge(n,x,p)-q, True),25)); sys.stdout.flush()
    for x in sorted(set([0]+xs)):
        if x < n: print('U',x,n,qs,mp.nstr(bis(lambda p: tail_le(n,x,p)-q, False),25)); sys.stdout.flush()
