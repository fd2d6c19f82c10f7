#!/usr/bin/env python3
"""Write the seeds of fuzz_dwarf_line and fuzz_dwarf_die (fuzz/corpus/
dwarf_line/, dwarf_die/) in dwarf_elf.h's record format, from real DWARF:

 - prog-*: tests/progs/inlines.c, shapes.c and cxx.cpp compiled here -O2 -g
   by gcc (DWARF 2, 3, 4, 5) and clang (DWARF 4, 5): every DWARF section
   whole, and the addresses of the program's functions;
 - libc-*: single compilation units of this machine's libc debug file
   (libc6-dbg, found by the build-id of /usr/lib/x86_64-linux-gnu/libc.so.6),
   cut out: the unit's DIEs, its abbreviation table, its line table, its
   range lists and only the strings it uses (string offsets rewritten),
   and the low_pc of its subprograms. Units with inlined subroutines are
   chosen.

dwarf_line gets .debug_line, the string sections and the addresses (the
target makes its own .debug_info); dwarf_die gets everything.
Needs gcc, g++, clang, readelf.

    fuzz/gen_dwarf_seeds.py [OUTDIR]   (default: fuzz/corpus)
"""
import os, struct, subprocess, sys, tempfile, zlib

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, 'corpus')
KIND = {'.debug_info': 0, '.debug_abbrev': 1, '.debug_line': 2, '.debug_str': 3,
        '.debug_line_str': 4, '.debug_ranges': 5, '.debug_rnglists': 6,
        '.debug_aranges': 7, '.debug_addr': 8, '.debug_str_offsets': 9,
        '.debug_loclists': 10}
ADDRS = 15
LINE_KINDS = ('.debug_line', '.debug_str', '.debug_line_str')


def records(secs, addrs):
    b = bytearray()
    for name, data in secs:
        for at in range(0, len(data), 0xffff):
            chunk = data[at:at + 0xffff]
            b += struct.pack('<BH', KIND[name], len(chunk)) + chunk
    a = b''.join(struct.pack('<Q', x) for x in addrs[:16])
    b += struct.pack('<BH', ADDRS, len(a)) + a
    return bytes(b)


def write(target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)
    print('%s/%s: %d bytes' % (target, name, len(data)))


def elf_sections(path):
    """name -> (bytes, addr) of an ELF64 LE file; SHF_COMPRESSED zlib undone."""
    b = open(path, 'rb').read()
    shoff, = struct.unpack_from('<Q', b, 40)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 58)
    hdrs = [struct.unpack_from('<IIQQQQIIQQ', b, shoff + i * shentsize) for i in range(shnum)]
    stro = hdrs[shstrndx][4]
    secs = {}
    for h in hdrs:
        nm = b[stro + h[0]:b.index(b'\0', stro + h[0])].decode()
        data = b[h[4]:h[4] + h[5]] if h[1] != 8 else b''
        if h[2] & 0x800:  # SHF_COMPRESSED: Elf64_Chdr, then zlib
            data = zlib.decompress(data[24:])
        secs[nm] = (data, h[3], h)
    return secs


def functions(secs, limit=16):
    """Addresses of defined functions (size > 0) in .symtab, program ones first."""
    if '.symtab' not in secs:
        return []
    sym, _, _ = secs['.symtab']
    strs, _, _ = secs['.strtab']
    fs = []
    for at in range(0, len(sym), 24):
        name, info, other, shndx, value, size = struct.unpack_from('<IBBHQQ', sym, at)
        if info & 15 == 2 and size and shndx:
            nm = strs[name:strs.index(b'\0', name)]
            fs.append((nm.startswith(b'_'), value))
    return [v for _, v in sorted(set(fs))][:limit]


def progs():
    tmp = tempfile.mkdtemp()
    p = os.path.join(root, 'tests', 'progs')
    builds = [
        ('gcc-dwarf5-inlines', ['gcc', '-O2', '-g', p + '/inlines.c']),
        ('gcc-dwarf4-inlines', ['gcc', '-O2', '-gdwarf-4', p + '/inlines.c']),
        ('gcc-dwarf3-inlines', ['gcc', '-O2', '-gdwarf-3', p + '/inlines.c']),
        ('gcc-dwarf2-inlines', ['gcc', '-O2', '-gdwarf-2', p + '/inlines.c']),
        ('clang-dwarf5-inlines', ['clang', '-O2', '-g', p + '/inlines.c']),
        ('clang-dwarf4-inlines', ['clang', '-O2', '-gdwarf-4', p + '/inlines.c']),
        ('gcc-dwarf5-shapes', ['gcc', '-O2', '-g', p + '/shapes.c', '-lpthread']),
        ('clang-dwarf5-shapes', ['clang', '-O2', '-g', p + '/shapes.c', '-lpthread']),
        ('gxx-dwarf5-cxx', ['g++', '-O2', '-g', p + '/cxx.cpp']),
        ('clangxx-dwarf4-cxx', ['clang++', '-O2', '-gdwarf-4', p + '/cxx.cpp']),
    ]
    # The seeds name the source tree as /src/kiln-tree, not where it is.
    remap = ['-ffile-prefix-map=%s=/src/kiln-tree' % root]
    for name, cmd in builds:
        exe = os.path.join(tmp, name)
        subprocess.run(cmd + remap + ['-o', exe], check=True, cwd=root)
        secs = elf_sections(exe)
        addrs = functions(secs)
        dw = [(n, secs[n][0]) for n in KIND if n in secs and secs[n][0]]
        write('dwarf_die', 'prog-' + name, records(dw, addrs))
        write('dwarf_line', 'prog-' + name,
              records([(n, d) for n, d in dw if n in LINE_KINDS], addrs))


# ---- libc units ----

def uleb(b, at):
    v = sh = 0
    while True:
        c = b[at]
        at += 1
        v |= (c & 0x7f) << sh
        sh += 7
        if not c & 0x80:
            return v, at


def sleb(b, at):
    v = sh = 0
    while True:
        c = b[at]
        at += 1
        v |= (c & 0x7f) << sh
        sh += 7
        if not c & 0x80:
            return (v - (1 << sh) if c & 0x40 else v), at


def cstr(b, at):
    e = b.index(b'\0', at)
    return b[at:e], e + 1


class Strings:
    """A new string section holding the strings it was asked for."""
    def __init__(self):
        self.b = bytearray()
        self.at = {}

    def add(self, s):
        if s not in self.at:
            self.at[s] = len(self.b)
            self.b += s + b'\0'
        return self.at[s]


FIXED = {0x05: 2, 0x06: 4, 0x07: 8, 0x0b: 1, 0x0c: 1, 0x10: 4, 0x11: 1, 0x12: 2, 0x13: 4,
         0x14: 8, 0x17: 4, 0x19: 0, 0x1c: 4, 0x1d: 4, 0x1e: 16, 0x20: 8, 0x24: 8, 0x25: 1,
         0x26: 2, 0x27: 3, 0x28: 4, 0x29: 1, 0x2a: 2, 0x2b: 3, 0x2c: 4, 0x21: 0,
         0x1f20: 4, 0x1f21: 4, 0x0e: 4, 0x1f: 4, 0x01: 8}
ULEB = {0x0f, 0x15, 0x1a, 0x1b, 0x22, 0x23}


def form_size(b, at, form):
    """(offset past the value, value start) of one attribute value."""
    if form in FIXED:
        return at + FIXED[form]
    if form in ULEB:
        return uleb(b, at)[1]
    if form == 0x0d:
        return sleb(b, at)[1]
    if form == 0x08:
        return cstr(b, at)[1]
    if form in (0x09, 0x18):
        n, at = uleb(b, at)
        return at + n
    if form == 0x0a:
        return at + 1 + b[at]
    if form == 0x03:
        return at + 2 + struct.unpack_from('<H', b, at)[0]
    if form == 0x04:
        return at + 4 + struct.unpack_from('<I', b, at)[0]
    raise ValueError('form %#x' % form)


def abbrevs(ab, off):
    """code -> (tag, children, [(at, form, implicit)]), and the table's end."""
    t = {}
    while True:
        code, off = uleb(ab, off)
        if not code:
            return t, off
        tag, off = uleb(ab, off)
        ch = ab[off]
        off += 1
        attrs = []
        while True:
            a, off = uleb(ab, off)
            f, off = uleb(ab, off)
            imp = None
            if f == 0x21:
                imp, off = sleb(ab, off)
            if not a and not f:
                break
            attrs.append((a, f))
        t[code] = (tag, ch, attrs)


def line_unit(line, off, line_str, strs, new_line_str, new_str):
    """The line table at 'off' with its line_strp/strp offsets rewritten."""
    ln, = struct.unpack_from('<I', line, off)
    u = bytearray(line[off:off + 4 + ln])
    ver, = struct.unpack_from('<H', u, 4)
    if ver < 5:
        return bytes(u)
    at = 4 + 2 + 2 + 4
    at += 5
    opbase = u[at]
    at += 1 + opbase - 1
    for _ in range(2):  # directories, then files
        nf = u[at]
        at += 1
        fmt = []
        for _ in range(nf):
            c, at = uleb(u, at)
            f, at = uleb(u, at)
            fmt.append(f)
        n, at = uleb(u, at)
        for _ in range(n):
            for f in fmt:
                if f in (0x1f, 0x0e):
                    o, = struct.unpack_from('<I', u, at)
                    src, dst = (line_str, new_line_str) if f == 0x1f else (strs, new_str)
                    struct.pack_into('<I', u, at, dst.add(cstr(src, o)[0]))
                at = form_size(u, at, f)
    return bytes(u)


def rnglist(rl, off):
    """The bytes of one DWARF 5 range list (to its DW_RLE_end_of_list)."""
    at = off
    while True:
        k = rl[at]
        at += 1
        if k == 0:
            return rl[off:at]
        if k in (1,):
            at = uleb(rl, at)[1]
        elif k in (2, 3, 4):
            at = uleb(rl, uleb(rl, at)[1])[1]
        elif k == 5:
            at += 8
        elif k == 6:
            at += 16
        elif k == 7:
            at = uleb(rl, at + 8)[1]
        else:
            raise ValueError('rle %d' % k)


def cut_unit(s, off):
    """One DWARF 5 compile unit of libc's debug file as seed sections, or None."""
    info, ab, line = s['.debug_info'][0], s['.debug_abbrev'][0], s['.debug_line'][0]
    strs, lstr, rl = s['.debug_str'][0], s['.debug_line_str'][0], s['.debug_rnglists'][0]
    ln, ver, ut, asz, aoff = struct.unpack_from('<IHBBI', info, off)
    if ver != 5 or ut != 1 or asz != 8:
        return None
    end = off + 4 + ln
    table, aend = abbrevs(ab, aoff)
    u = bytearray(info[off:end])
    struct.pack_into('<I', u, 8, 0)  # its abbreviations start the new section
    new_str, new_lstr = Strings(), Strings()
    rng = bytearray(struct.pack('<IHBBI', 0, 5, 8, 0, 0))
    line_bytes, lows, inl = b'', [], 0
    at = 12
    depth = 0
    while at < len(u):
        code, at = uleb(u, at)
        if not code:
            depth -= 1
            continue
        tag, ch, attrs = table[code]
        inl += tag == 0x1d
        for a, f in attrs:
            if f == 0x16:
                f, at = uleb(u, at)
            if f == 0x0e:
                o, = struct.unpack_from('<I', u, at)
                struct.pack_into('<I', u, at, new_str.add(cstr(strs, o)[0]))
            elif f == 0x1f:
                o, = struct.unpack_from('<I', u, at)
                struct.pack_into('<I', u, at, new_lstr.add(cstr(lstr, o)[0]))
            elif f == 0x17 and a == 0x10:  # stmt_list
                o, = struct.unpack_from('<I', u, at)
                line_bytes = line_unit(line, o, lstr, strs, new_lstr, new_str)
                struct.pack_into('<I', u, at, 0)
            elif f == 0x17 and a == 0x55:  # ranges
                o, = struct.unpack_from('<I', u, at)
                struct.pack_into('<I', u, at, len(rng))
                rng += rnglist(rl, o)
            elif f == 0x17:  # locations and others: not read by srcline
                struct.pack_into('<I', u, at, 0xffffffff)
            elif f in (0x10, 0x1f20, 0x1f21, 0x1c, 0x1d):
                return None  # refers outside the unit
            elif f == 0x01 and a == 0x11 and tag == 0x2e:
                lows.append(struct.unpack_from('<Q', u, at)[0])
            at = form_size(u, at, f)
        if ch:
            depth += 1
    struct.pack_into('<I', rng, 0, len(rng) - 4)
    secs = [('.debug_info', bytes(u)), ('.debug_abbrev', ab[aoff:aend]),
            ('.debug_line', line_bytes), ('.debug_str', bytes(new_str.b)),
            ('.debug_line_str', bytes(new_lstr.b)), ('.debug_rnglists', bytes(rng))]
    return secs, lows, inl


def libc():
    so = '/usr/lib/x86_64-linux-gnu/libc.so.6'
    note = subprocess.run(['readelf', '-n', so], capture_output=True, text=True).stdout
    bid = [l.split()[-1] for l in note.splitlines() if 'Build ID' in l][0]
    dbg = '/usr/lib/debug/.build-id/%s/%s.debug' % (bid[:2], bid[2:])
    s = elf_sections(dbg)
    info = s['.debug_info'][0]
    off, picked = 0, []
    while off < len(info) and len(picked) < 8:
        ln, = struct.unpack_from('<I', info, off)
        if 2000 < ln < 12000:
            try:
                got = cut_unit(s, off)
            except (ValueError, KeyError, IndexError, struct.error):
                got = None
            if got and got[2] >= 3 and got[1]:
                picked.append((off, got))
        off += 4 + ln
    for off, (secs, lows, _) in picked:
        secs = [(n, d) for n, d in secs if d]
        total = sum(len(d) for _, d in secs)
        if total > 60000:
            continue
        name = 'libc-unit-%x' % off
        write('dwarf_die', name, records(secs, lows))
        write('dwarf_line', name, records([(n, d) for n, d in secs if n in LINE_KINDS], lows))


progs()
libc()
