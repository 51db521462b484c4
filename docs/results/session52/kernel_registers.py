# registers and stack (spill) bytes of 3D Euler's tensor-core element kernels on tetrahedra, from
# `cuobjdump --dump-resource-usage flowdg` (template arguments after the geometry kind:
# MinBlocks/Wide/FloatRows/LateRk/APrefetch/Traces[/Groups or FixedNq/FixedNfq])
import re, sys
cur = None
for l in open(sys.argv[1]).read().split('\n'):
    m = re.search(r'Function (\S+):', l)
    if m: cur = m.group(1); continue
    m = re.search(r'REG:(\d+) STACK:(\d+)', l)
    if m and cur and 'core_element_tensor_kernel' in cur and 'EulerILi3E' in cur and 'ShapeE4E' in cur:
        t = re.search(r'ShapeE4ELi(\d)ELNS0_12GeometryKindE(\d)E(.*?)EEEvNS0', cur)
        if t and t.group(2) == '0' and t.group(1) in '34':
            args = t.group(3).replace('ELb', '/').replace('ELi', '/').replace('Li', '').replace('n', '-')
            print(f"p={t.group(1)} {'float ' if 'EfEE' in cur else 'double'} args {args:28s} registers {m.group(1):>3s} stack {m.group(2)}")
        cur = None
