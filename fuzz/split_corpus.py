#!/usr/bin/env python3
"""split_corpus.py LOGDIR: cut the sessions fuzz/record_corpus.sh recorded
into the seed corpus of every harness (fuzz/corpus/NAME/, replaced).

  gdb_dispatch  the packets of each session (--remote-debug's getpkt lines),
                in pieces of ~25, one per line; addresses of Z/z/m/M/X moved
                into the fake process's text (0x401000 + low byte), and after
                each stop reply the kernel event that brings it (int3, step,
                signal, exit, syscall), as fuzz/gdb_dispatch_fuzz.c reads them
  pty_session   the pid name, then the first packets of each session as gdb
                writes them on a pty: framed, each after the '+' of the reply
  rsp_codec     the same byte streams, with and without acks, in pieces
  agent         each Z packet's conditions/commands tail, and each bytecode
  trc_wire      ustrace's Qutraced.trace options + the records the daemon sent
                back (taken from strace's log of ustrace)
ustrace_opts is written by hand (its files are command lines, NUL-separated).
--remote-debug logs at most 200 bytes of a packet: longer ones are cut.
"""
import os
import re
import sys

LOG = sys.argv[1]
TOP = os.path.dirname(os.path.abspath(__file__))
PKT = re.compile(r'^getpkt \("(.*)"\);$')
STOP = re.compile(r'^putpkt \("(.*)"\); \[stop\]$')


def out(name, fname, data):
    d = os.path.join(TOP, 'corpus', name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, fname), 'wb') as f:
        f.write(data)


def frame(payload):
    esc = b''
    for c in payload:
        if c in b'$#}*':
            esc += bytes([ord('}'), c ^ 0x20])
        else:
            esc += bytes([c])
    return b'$' + esc + b'#%02x' % (sum(esc) & 0xff)


def session(path):
    """[(kind, bytes)]: ('pkt', payload) and ('stop', reply) in order."""
    items = []
    for line in open(path, encoding='latin-1'):
        line = line.rstrip('\n')
        m = PKT.match(line)
        if m:
            items.append(('pkt', m.group(1).encode('latin-1')))
            continue
        m = STOP.match(line)
        if m:
            items.append(('stop', m.group(1).encode('latin-1')))
    return items


def remap(p):
    m = re.match(rb'^([ZzmMX])([0-4],)?([0-9a-f]+)(.*)$', p, re.S)
    if not m or m.group(1) in b'Zz' and not m.group(2):
        return p
    a = int(m.group(3), 16)
    if a < 0x400000:
        return p
    return m.group(1) + (m.group(2) or b'') + b'%x' % (0x401000 + (a & 0xff)) + m.group(4)


def event(reply, last_bp):
    def ev(kind, arg):
        arg &= 0xff
        return b'\x01' + bytes([kind, 0, 11 if arg == 10 else arg])
    if reply[:1] in (b'W', b'X'):
        return ev(5, int(reply[1:3], 16) | (0x80 if reply[:1] == b'X' else 0))
    sig = int(reply[1:3], 16)
    if b'syscall_' in reply:
        return ev(6, 0)
    if b'swbreak' in reply:
        return ev(0, last_bp)
    if b'watch' in reply or b'hwbreak' in reply:
        return ev(4, 1)
    if sig == 5:
        return ev(1, 0)
    return ev(2, sig)


def dispatch_lines(items):
    lines, last_bp = [], 0x10
    for kind, data in items:
        if kind == 'pkt':
            p = remap(data)
            m = re.match(rb'^Z0,([0-9a-f]+)', p)
            if m:
                last_bp = int(m.group(1), 16) & 0xff
            lines.append(p)
        else:
            lines.append(event(data, last_bp))
    return [l for l in lines if b'\n' not in l]


def stream(items, acks=True):
    b, noack = b'', False
    for kind, data in items:
        if kind != 'pkt':
            continue
        b += (b'' if noack or not b else b'+') + frame(data)
        noack = noack or data == b'QStartNoAckMode'
    return b


def main():
    logs = sorted(f for f in os.listdir(LOG) if f.endswith('.log'))
    fuse_pid = open(os.path.join(LOG, 'fuse.pid')).read().strip().encode()
    for log in logs:
        base = log[:-4]
        items = session(os.path.join(LOG, log))
        if not any(k == 'pkt' for k, _ in items):
            continue
        lines = dispatch_lines(items)
        for i in range(0, len(lines), 25):
            out('gdb_dispatch', '%s-%02d' % (base, i // 25), b'\n'.join(lines[i:i + 25]) + b'\n')
        pkts = [x for x in items if x[0] == 'pkt']
        name = fuse_pid if base == 'fuse' else b'1234'
        for n in (1, 4, 12, 40):
            out('pty_session', '%s-first%d' % (base, n), name + b'\n' + stream(pkts[:n]))
        s = stream(pkts)
        for i, flags in enumerate((0, 1, 2 * 7, 2 * 64 + 1)):
            piece = s[i * 2000:i * 2000 + 4000]
            out('rsp_codec', '%s-%d' % (base, i), bytes([flags]) + piece)
        seen = set()
        for k, p in pkts:
            m = re.match(rb'^Z[0-4],[0-9a-f]+,[0-9]+(;.*)$', p, re.S)
            if not m or m.group(1) in seen:
                continue
            seen.add(m.group(1))
            n = len(seen)
            out('agent', '%s-tail%d' % (base, n), b'\x00' + m.group(1))
            for j, x in enumerate(re.findall(rb'X[0-9a-f]+,([0-9a-f]+)', m.group(1))):
                out('agent', '%s-code%d-%d' % (base, n, j), b'\x01' + bytes.fromhex(x.decode()))
    wire()


def wire():
    """ustrace's traffic with the daemon, from strace -xx: per ustrace, options and records."""
    io = {}
    for line in open(os.path.join(LOG, 'ustrace.strace')):
        m = re.match(r'(\d+) +(read|write)\((\d+), "((?:\\x[0-9a-f]{2})*)"', line)
        if m:
            key = (m.group(1), m.group(3))
            w, r = io.setdefault(key, [b'', b''])
            data = bytes.fromhex(m.group(4).replace('\\x', ''))
            io[key] = [w + data, r] if m.group(2) == 'write' else [w, r + data]
    n = 0
    for (pid, fd), (w, r) in io.items():
        m = re.search(rb'\$Qutraced\.trace:([^#]*)#', w)
        if not m:
            continue
        recs = b''
        for note in re.findall(rb'%utraced\.out:([^#]*)#', r):
            recs += re.sub(rb'\}(.)', lambda x: bytes([x.group(1)[0] ^ 0x20]), note, flags=re.S)
        n += 1
        for i in range(0, min(len(recs), 24000), 6000):
            out('trc_wire', 'ustrace%d-%d' % (n, i // 6000), m.group(1) + b'\n' + recs[i:i + 6000])
        out('trc_wire', 'ustrace%d-opts' % n, m.group(1))


main()
