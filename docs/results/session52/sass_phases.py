import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1])))
hdr = rows[1]; data = rows[2:]
ix = {h: i for i, h in enumerate(hdr)}
reasons = [h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
def num(r, h):
    try: return float(r[ix[h]].replace(',', ''))
    except: return 0.0
seg = 0; segs = collections.defaultdict(lambda: collections.Counter()); first = {}
segtext = collections.defaultdict(list)
total = 0
for r in data:
    src = r[ix['Source']].strip()
    s = num(r, 'Warp Stall Sampling (All Samples)'); total += s
    c = segs[seg]; c['samples'] += s; c['inst'] += num(r, 'Instructions Executed')
    c['shx'] += num(r, 'L1 Wavefronts Shared Excessive'); c['sh'] += num(r, 'L1 Wavefronts Shared')
    c['l2x'] += num(r, 'L2 Theoretical Sectors Global Excessive')
    for h in reasons: c[h] += num(r, h)
    op = src.split()[0] if src else ''
    if op.startswith('@'): op = src.split()[1]
    c['op:' + op.split('.')[0]] += num(r, 'Instructions Executed')
    segtext[seg].append((s, src, r[ix['Address']]))
    if 'BAR' in src and ('SYNC' in src or 'ARV' in src): seg += 1
print('total samples', total)
for k in sorted(segs):
    c = segs[k]
    top = sorted(((c[h], h[6:]) for h in reasons), reverse=True)[:5]
    ops = sorted(((v, o[3:]) for o, v in c.items() if o.startswith('op:')), reverse=True)[:8]
    print(f"seg {k}: {100*c['samples']/total:5.1f}% samples, inst {c['inst']/1e6:7.1f}M, shared wf {c['sh']/1e6:.1f}M excess {c['shx']/1e6:.1f}M, l2 excess {c['l2x']/1e6:.1f}M")
    print('    stalls:', ', '.join(f'{n} {100*v/max(c["samples"],1):.0f}%' for v, n in top))
    print('    ops:', ', '.join(f'{o} {v/1e6:.1f}M' for v, o in ops))
    hot = sorted(segtext[k], reverse=True)[:4]
    for s, src, a in hot: print(f'      {100*s/total:4.1f}%  {src[:90]}')
