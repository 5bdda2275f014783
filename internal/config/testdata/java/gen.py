import random
random.seed(4)
def hx(s): return s.encode('utf-8').hex()
# durations
d = set()
hand = ["PT0.5S","PT2S","PT1M30S","P1DT2H","PT-1S","-PT1S","-PT-1S","+PT1S","pt2s","Pt2s","P0D","PT0S","P","PT","P1D","P1DT","PT1H2M3.456S","PT1.S","PT.5S","PT1,5S","PT0.123456789S","PT0.1234567890S",
 "P1Y","P1M","P1W","PT1D","P1H","PT1H1H","PT1S1M","PT-0.5S","PT+0.5S","P-1D","P+1DT+1H","PT1M-30S","P106751DT23H47M16.854775807S","P106751DT23H47M16.854775808S",
 "-P106751DT23H47M16.854775808S","-P106751DT23H47M16.854775809S","PT9223372036.854775807S","PT9223372036.854775808S","PT-9223372036.854775808S","PT2562047H47M16.854775807S",
 "PT9223372036854775807S","PT9223372036854775808S","PT-9223372036854775808S","P99999999999999999999D","PT00000000000000000000001S","PT1S ","P 1D","PT1H30M","P1DT0S","PT0H0M0S","PT-0S","-P0D",
 "P1DT-24H","P106752DT-24H","PT1E3S","PTS","PT-S","P-D","PT1.5M","PT1.5H","PT1S2S","PT0,5S","pT1m","p1d","P1dt1h1m1s","PT٣S","P1DT2H3M4.5S","PT1H-60M","PT+S","PT--1S","--PT1S","+-PT1S"]
for h in hand: d.add(h)
toks = ["P","p","T","t","D","H","M","S","s","m","h","Y","W","-","+",".",",","0","1","5","9","12","000","999999999","1234567890","106751","2562047","9223372036","854775807","854775808","9223372036854775807"]
while len(d) < 1600:
    n = random.randint(1,7)
    s = random.choice(["P","-P","+P","P","PT","-PT","pt"]) + "".join(random.choice(toks) for _ in range(n))
    d.add(s)
# structured valid-ish
def num(): 
    r = random.random()
    if r < 0.3: return str(random.randint(0,99))
    if r < 0.6: return str(random.randint(0,10**random.randint(1,19)))
    return random.choice(["106751","106752","2562047","153722867","9223372036","9223372037"])
for _ in range(1500):
    s = random.choice(["","-","+"]) + random.choice("Pp")
    parts=[]
    if random.random()<0.5: s += random.choice(["","-","+"]) + num() + random.choice("Dd")
    if random.random()<0.8:
        s += random.choice("Tt")
        for u in "HMS":
            if random.random()<0.6:
                s += random.choice(["","-","+"]) + num()
                if u=="S" and random.random()<0.5: s += random.choice(".,") + "".join(random.choice("0123456789") for _ in range(random.randint(0,10)))
                s += random.choice([u,u.lower()])
    d.add(s)
open("dur.in","w").write("\n".join(hx(x) for x in sorted(d))+"\n")
# properties
p = set()
hand = ["a=b","a = b","a:b","a b","a\tb","a\fb"," a=b","a=b \\\n  c","#c\na=b","!c\na=b","a\\=b=c","a\\:b:c","a\\ b c","a=\\u0041","a=\\u00","a=\\u00G1","a=\\uD83D\\uDE00","a=\\uD83D","a=\\uDE00","a\\\\","a\\","\\","\\\n#x\nk=v",
 "k=v\r\nk2=v2","k=v\rk2=v2","k=\\\r\n  v","a=b\\\\\nc=d","a=b\\\\\\\nc=d","a","a=","=b",":b"," = b","a==b","a=:b","a :=b","a\\tb=\\t\\n\\r\\f\\x\\\\","é=ü😀","a=b\\\n","a=b\\","k=\\u004","\\u0041=1","a=b\\\n\nc=d","a=b\\\n   \nc=d","k\\\n ey=v","#x\\\nk=v","k=v\n#\\\nk=w","k=1\nk=2"]
for h in hand: p.add(h)
ptoks = [" ","\t","\f","\\","\\","\n","\r","\r\n","=",":","#","!","u","0","A","d","D","8","3","x","é","😀","k","v","\\u","\\uD83D","\\uDE00","\\u0041","\\\n"]
while len(p) < 3000:
    p.add("".join(random.choice(ptoks) for _ in range(random.randint(1,14))))
open("prop.in","w").write("\n".join(hx(x) for x in sorted(p))+"\n")
