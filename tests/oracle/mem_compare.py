#!/usr/bin/env python3
"""Memory oracle helper: cuts simulator traces into scenarios, masks the
values that differ from run to run, and compares two runs of mem_sequences.

    mem_compare.py normalise --trace TRACE [--with-mmap] [--show-trace]
        prints every scenario's normalised ioctl (and mmap) lines.

    mem_compare.py compare [--reference debian|upstream]
                           --reference-out OUT --reference-trace TRACE
                           --ours-out OUT --ours-trace TRACE
                           --known FILE --target LABEL [--with-mmap] [--keep DIR]
        compares scenario by scenario: the API lines the programs printed and
        the normalised ioctl lines of the traces. The reference is Debian's
        libhsakmt 5.2.3 (default; --debian-out/--debian-trace are the same
        options) or upstream's current libhsakmt. Exit 0: no unexplained
        difference; 1: unexplained differences (printed); 2: usage, a
        malformed known-differences file, or no usable reference.

    mem_compare.py check-layouts --abi lib/kfd/abi.h --drm-abi lib/kfd/drm_abi.h
        checks LAYOUTS below against the static_assert'ed sizes of the
        project's own ABI headers (the self-test runs it).

Trace format: platform/sim/core/README.md. Markers: mem_sequences.c calls
access("/dev/hke-oracle-mem/<scenario>") before each scenario and
access("/dev/hke-oracle-mem-call/<call>") after each API call, which the
preload traces as "path access <path> -> host" in order with the ioctl
lines. Everything before the first scenario marker is dropped; a call
marker becomes a line "= <call>" after the ioctls that call issued.

Normalising an ioctl line: the sequence number and the fd are dropped; the
in= and out= bytes are decoded with LAYOUTS (the KFD and DRM argument
structs, offsets as in lib/kfd/abi.h and lib/kfd/drm_abi.h) and each field is
printed as name=value, the out= part listing only fields whose value changed.
Fields whose value is an address, a handle, a descriptor or a clock are
masked:
    va      CPU/GPU virtual address -> va1, va2, ... (named by its 4 KiB page,
            numbered per scenario by first appearance, so the same address
            keeps its name; an offset inside the page stays visible, e.g.
            va2+0x100; 0 stays 0)
    handle  KFD BO handle -> h1@<gpu_id>, ... (numbered per scenario; the
            high 32 bits, the gpu_id, stay visible)
    offset  render-node mmap offset of a VRAM/GTT BO returned by ALLOC -> o1,
            ... (numbered per scenario, 0 included; an mmap line's off= on a
            render node uses the same names). Doorbell and MMIO offsets
            (fixed encodings of the gpu_id) and the caller's input stay
            visible.
    ptr     pointer to a user buffer (arrays, strings) -> <ptr> (0 stays 0)
    fd      file descriptor -> <fd>;  pid, clock -> <pid>, <clock>
    share   the KFD's IPC share token (DKMS IPC ioctls) -> <share>
ALLOC_MEMORY_OF_GPU's mmap_offset is a va when the flags say USERPTR, an
offset otherwise. A request without a layout is printed as raw hex (and
compared as such).
"""
import argparse
import difflib
import re
import sys
from collections import OrderedDict

MARKER_PREFIX = "/dev/hke-oracle-mem/"
CALL_MARKER_PREFIX = "/dev/hke-oracle-mem-call/"

# ---- argument layouts --------------------------------------------------------
# name -> (abi struct name for check-layouts, [(field, size, kind)]). Kinds:
# u (unsigned, printed in hex), i (signed decimal), va, va16 (an address in
# 64 KiB units), handle, ptr, fd, pid, clock, share, allocflags (hex +
# names), alloc_off (ALLOC's mmap_offset), offset, pad.
LAYOUTS = {
    "AMDKFD_IOC_GET_VERSION": ("GetVersionArgs", [("major", 4, "u"), ("minor", 4, "u")]),
    "AMDKFD_IOC_CREATE_QUEUE": ("CreateQueueArgs", [
        ("ring_base_address", 8, "va"), ("write_pointer_address", 8, "va"),
        ("read_pointer_address", 8, "va"), ("doorbell_offset", 8, "u"), ("ring_size", 4, "u"),
        ("gpu_id", 4, "u"), ("queue_type", 4, "u"), ("queue_percentage", 4, "u"),
        ("queue_priority", 4, "u"), ("queue_id", 4, "u"), ("eop_buffer_address", 8, "va"),
        ("eop_buffer_size", 8, "u"), ("ctx_save_restore_address", 8, "va"),
        ("ctx_save_restore_size", 4, "u"), ("ctl_stack_size", 4, "u"),
        ("sdma_engine_id", 4, "u"), ("pad", 4, "pad")]),
    "AMDKFD_IOC_DESTROY_QUEUE": ("DestroyQueueArgs", [("queue_id", 4, "u"), ("pad", 4, "pad")]),
    "AMDKFD_IOC_UPDATE_QUEUE": ("UpdateQueueArgs", [
        ("ring_base_address", 8, "va"), ("queue_id", 4, "u"), ("ring_size", 4, "u"),
        ("queue_percentage", 4, "u"), ("queue_priority", 4, "u")]),
    "AMDKFD_IOC_SET_MEMORY_POLICY": ("SetMemoryPolicyArgs", [
        ("alternate_aperture_base", 8, "u"), ("alternate_aperture_size", 8, "u"),
        ("gpu_id", 4, "u"), ("default_policy", 4, "u"), ("alternate_policy", 4, "u"),
        ("misc_process_flag", 4, "u")]),
    "AMDKFD_IOC_GET_CLOCK_COUNTERS": ("GetClockCountersArgs", [
        ("gpu_clock_counter", 8, "clock"), ("cpu_clock_counter", 8, "clock"),
        ("system_clock_counter", 8, "clock"), ("system_clock_freq", 8, "u"), ("gpu_id", 4, "u"),
        ("pad", 4, "pad")]),
    "AMDKFD_IOC_CREATE_EVENT": ("CreateEventArgs", [
        ("event_page_offset", 8, "handle"), ("event_trigger_data", 4, "u"), ("event_type", 4, "u"),
        ("auto_reset", 4, "u"), ("node_id", 4, "u"), ("event_id", 4, "u"),
        ("event_slot_index", 4, "u")]),
    "AMDKFD_IOC_DESTROY_EVENT": ("DestroyEventArgs", [("event_id", 4, "u"), ("pad", 4, "pad")]),
    "AMDKFD_IOC_SET_EVENT": ("SetEventArgs", [("event_id", 4, "u"), ("pad", 4, "pad")]),
    "AMDKFD_IOC_RESET_EVENT": ("ResetEventArgs", [("event_id", 4, "u"), ("pad", 4, "pad")]),
    "AMDKFD_IOC_WAIT_EVENTS": ("WaitEventsArgs", [
        ("events_ptr", 8, "ptr"), ("num_events", 4, "u"), ("wait_for_all", 4, "u"),
        ("timeout", 4, "u"), ("wait_result", 4, "u")]),
    # va_addr is the scratch backing's address shifted right by 16 (64 KiB units).
    "AMDKFD_IOC_SET_SCRATCH_BACKING_VA": ("SetScratchBackingVaArgs", [
        ("va_addr", 8, "va16"), ("gpu_id", 4, "u"), ("pad", 4, "pad")]),
    "AMDKFD_IOC_GET_TILE_CONFIG": ("GetTileConfigArgs", [
        ("tile_config_ptr", 8, "ptr"), ("macro_tile_config_ptr", 8, "ptr"),
        ("num_tile_configs", 4, "u"), ("num_macro_tile_configs", 4, "u"), ("gpu_id", 4, "u"),
        ("gb_addr_config", 4, "u"), ("num_banks", 4, "u"), ("num_ranks", 4, "u")]),
    "AMDKFD_IOC_SET_TRAP_HANDLER": ("SetTrapHandlerArgs", [
        ("tba_addr", 8, "va"), ("tma_addr", 8, "va"), ("gpu_id", 4, "u"), ("pad", 4, "pad")]),
    "AMDKFD_IOC_GET_PROCESS_APERTURES_NEW": ("GetProcessAperturesNewArgs", [
        ("kfd_process_device_apertures_ptr", 8, "ptr"), ("num_of_nodes", 4, "u"),
        ("pad", 4, "pad")]),
    "AMDKFD_IOC_ACQUIRE_VM": ("AcquireVmArgs", [("drm_fd", 4, "fd"), ("gpu_id", 4, "u")]),
    "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU": ("AllocMemoryOfGpuArgs", [
        ("va_addr", 8, "va"), ("size", 8, "u"), ("handle", 8, "handle"),
        ("mmap_offset", 8, "alloc_off"), ("gpu_id", 4, "u"), ("flags", 4, "allocflags")]),
    "AMDKFD_IOC_FREE_MEMORY_OF_GPU": ("FreeMemoryOfGpuArgs", [("handle", 8, "handle")]),
    "AMDKFD_IOC_MAP_MEMORY_TO_GPU": ("MapMemoryToGpuArgs", [
        ("handle", 8, "handle"), ("device_ids_array_ptr", 8, "ptr"), ("n_devices", 4, "u"),
        ("n_success", 4, "u")]),
    "AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU": ("UnmapMemoryFromGpuArgs", [
        ("handle", 8, "handle"), ("device_ids_array_ptr", 8, "ptr"), ("n_devices", 4, "u"),
        ("n_success", 4, "u")]),
    "AMDKFD_IOC_SET_CU_MASK": ("SetCuMaskArgs", [
        ("queue_id", 4, "u"), ("num_cu_mask", 4, "u"), ("cu_mask_ptr", 8, "ptr")]),
    "AMDKFD_IOC_GET_DMABUF_INFO": ("GetDmabufInfoArgs", [
        ("size", 8, "u"), ("metadata_ptr", 8, "ptr"), ("metadata_size", 4, "u"),
        ("gpu_id", 4, "u"), ("flags", 4, "allocflags"), ("dmabuf_fd", 4, "fd")]),
    "AMDKFD_IOC_IMPORT_DMABUF": ("ImportDmabufArgs", [
        ("va_addr", 8, "va"), ("handle", 8, "handle"), ("gpu_id", 4, "u"),
        ("dmabuf_fd", 4, "fd")]),
    "AMDKFD_IOC_SMI_EVENTS": ("SmiEventsArgs", [("gpuid", 4, "u"), ("anon_fd", 4, "fd")]),
    "AMDKFD_IOC_SVM": ("SvmArgs", [
        ("start_addr", 8, "va"), ("size", 8, "u"), ("op", 4, "u"), ("nattr", 4, "u")]),
    "AMDKFD_IOC_SET_XNACK_MODE": ("SetXnackModeArgs", [("xnack_enabled", 4, "i")]),
    "AMDKFD_IOC_AVAILABLE_MEMORY": ("GetAvailableMemoryArgs", [
        ("available", 8, "u"), ("gpu_id", 4, "u"), ("pad", 4, "pad")]),
    "AMDKFD_IOC_EXPORT_DMABUF": ("ExportDmabufArgs", [
        ("handle", 8, "handle"), ("flags", 4, "u"), ("dmabuf_fd", 4, "fd")]),
    "AMDKFD_IOC_RUNTIME_ENABLE": ("RuntimeEnableArgs", [
        ("r_debug", 8, "ptr"), ("mode_mask", 4, "u"), ("capabilities_mask", 4, "u")]),
    # DKMS-only (the ROCm out-of-tree kernel); the simulator names them "?".
    "AMDKFD_IOC_IPC_IMPORT_HANDLE": ("IpcImportHandleArgs", [
        ("handle", 8, "handle"), ("va_addr", 8, "va"),
        ("mmap_offset", 8, "offset"), ("share_handle", 16, "share"), ("gpu_id", 4, "u"),
        ("flags", 4, "allocflags")]),
    "AMDKFD_IOC_IPC_EXPORT_HANDLE": ("IpcExportHandleArgs", [
        ("handle", 8, "handle"), ("share_handle", 16, "share"), ("gpu_id", 4, "u"),
        ("flags", 4, "u")]),
    "DRM_IOCTL_VERSION": ("drm::Version", [
        ("version_major", 4, "i"), ("version_minor", 4, "i"), ("version_patchlevel", 4, "i"),
        ("pad", 4, "pad"), ("name_len", 8, "u"), ("name", 8, "ptr"), ("date_len", 8, "u"),
        ("date", 8, "ptr"), ("desc_len", 8, "u"), ("desc", 8, "ptr")]),
    "DRM_IOCTL_GET_CLIENT": ("drm::Client", [
        ("idx", 4, "i"), ("auth", 4, "i"), ("pid", 8, "pid"), ("uid", 8, "pid"),
        ("magic", 8, "u"), ("iocs", 8, "u")]),
    "DRM_IOCTL_AMDGPU_INFO": ("drm::AmdgpuInfo", [
        ("return_pointer", 8, "ptr"), ("return_size", 4, "u"), ("query", 4, "u"),
        ("arg0", 4, "u"), ("arg1", 4, "u"), ("arg2", 4, "u"), ("arg3", 4, "u")]),
}

# DKMS requests Debian's thunk sends, named here so that they get a layout
# also when the simulator does not serve them (it then traces name=?).
REQUEST_NAMES = {
    0xc0304b80: "AMDKFD_IOC_IPC_IMPORT_HANDLE",
    0xc0204b81: "AMDKFD_IOC_IPC_EXPORT_HANDLE",
}

# KFD_IOC_ALLOC_MEM_FLAGS_* (lib/kfd/abi.h kAllocMem*), most significant first.
ALLOC_FLAG_NAMES = [
    (1 << 31, "WRITABLE"), (1 << 30, "EXECUTABLE"), (1 << 29, "PUBLIC"),
    (1 << 28, "NO_SUBSTITUTE"), (1 << 27, "AQL_QUEUE_MEM"), (1 << 26, "COHERENT"),
    (1 << 25, "UNCACHED"), (1 << 24, "EXT_COHERENT"), (1 << 23, "CONTIGUOUS"),
    (1 << 0, "VRAM"), (1 << 1, "GTT"), (1 << 2, "USERPTR"), (1 << 3, "DOORBELL"),
    (1 << 4, "MMIO_REMAP"),
]
ALLOC_USERPTR = 1 << 2
ALLOC_FIXED_OFFSET = (1 << 3) | (1 << 4)  # doorbell / MMIO: offsets encode the gpu_id


def alloc_flags_text(v):
    names, rest = [], v
    for bit, name in ALLOC_FLAG_NAMES:
        if v & bit:
            names.append(name)
            rest &= ~bit
    if rest:
        names.append("0x%x" % rest)
    return "0x%08x(%s)" % (v, "|".join(names) if names else "0")


class Symbols:
    """Per-scenario names for masked values: the same value keeps its name."""

    def __init__(self):
        self.tables = {}

    def name(self, kind, value):
        if value == 0 and kind != "offset":  # offset 0 is a valid BO offset
            return "0"
        table = self.tables.setdefault(kind, {})
        if value not in table:
            table[value] = len(table) + 1
        n = table[value]
        if kind == "handle":
            return "h%d@0x%x" % (n, value >> 32)
        return "%s%d" % ({"va": "va", "offset": "o"}[kind], n)

    def va(self, value):
        """A virtual address: named by its 4 KiB page, the offset in the page
        kept visible (a userptr need not be page aligned)."""
        if value == 0:
            return "0"
        page, offset = value & ~0xFFF, value & 0xFFF
        return self.name("va", page) + ("+0x%x" % offset if offset else "")


def decode(name, data, syms, flags_hint=None, direction="in"):
    """Returns OrderedDict field -> (raw value, normalised text), or None
    without a layout. `direction` is "in" or "out" (ALLOC's mmap_offset is
    an offset only on the way out)."""
    layout = LAYOUTS.get(name)
    if layout is None:
        return None
    raw = OrderedDict()
    kinds = {}
    off = 0
    for fname, size, kind in layout[1]:
        if off + size > len(data):
            break
        raw[fname] = int.from_bytes(data[off:off + size], "little", signed=(kind == "i"))
        kinds[fname] = kind
        off += size
    flags = raw.get("flags", flags_hint)
    fields = OrderedDict()
    for fname, v in raw.items():
        kind = kinds[fname]
        if kind == "pad":
            if v != 0:
                fields[fname] = (v, "0x%x" % v)
            continue
        if kind == "u":
            text = "0x%x" % v
        elif kind == "i":
            text = "%d" % v
        elif kind == "allocflags":
            text = alloc_flags_text(v)
        elif kind == "va":
            text = syms.va(v)
        elif kind == "va16":  # an address in 64 KiB units
            text = "(%s)>>16" % syms.va(v << 16) if v else "0"
        elif kind == "handle":
            text = syms.name(kind, v)
        elif kind == "alloc_off":
            if flags is not None and flags & ALLOC_USERPTR:
                text = syms.va(v)
            elif (flags is not None and flags & ALLOC_FIXED_OFFSET) or direction == "in":
                text = "0x%x" % v
            else:
                text = syms.name("offset", v)
        elif kind == "ptr":
            text = "0" if v == 0 else "<ptr>"
        elif kind == "offset":
            text = syms.name("offset", v) if direction == "out" else "0x%x" % v
        elif kind == "share":  # a KFD IPC token
            text = "0" if v == 0 else "<share>"
        else:  # fd, pid, clock
            text = "<%s>" % kind
        fields[fname] = (v, text)
    rest = data[off:]
    if name == "AMDKFD_IOC_SVM" and rest and len(rest) % 8 == 0:
        # The attribute array follows the header (type:value pairs; values
        # are gpu_ids, flags or locations, none of them addresses).
        pairs = [(int.from_bytes(rest[i:i + 4], "little"),
                  int.from_bytes(rest[i + 4:i + 8], "little")) for i in range(0, len(rest), 8)]
        fields["attrs"] = (rest, ",".join("%d:0x%x" % p for p in pairs))
    elif rest:
        fields["+raw"] = (rest, rest.hex())
    return fields


# Out fields printed whenever the call succeeded, changed or not (the
# kernel's answer, e.g. an mmap offset of 0).
ALWAYS_OUT = {"AMDKFD_IOC_ALLOC_MEMORY_OF_GPU": ("handle", "mmap_offset"),
              "AMDKFD_IOC_IPC_IMPORT_HANDLE": ("handle", "mmap_offset", "flags"),
              "AMDKFD_IOC_IMPORT_DMABUF": ("handle",),
              "AMDKFD_IOC_EXPORT_DMABUF": ("dmabuf_fd",)}


IOCTL_RE = re.compile(
    r"^\d+ ioctl fd=\d+ dev=(?P<dev>\S+) req=(?P<req>0x[0-9a-f]+) name=(?P<name>\S+) "
    r"size=(?P<size>\d+) in=(?P<in>[0-9a-f]*)(?P<intrunc>\.\.\.)? -> (?P<result>\S+)"
    r"(?: out=(?P<out>[0-9a-f]*)(?P<outtrunc>\.\.\.)?)?(?P<tail>( injected| unknown)*)$")
MMAP_RE = re.compile(
    r"^\d+ mmap fd=\d+ dev=(?P<dev>\S+) addr=(?P<addr>0x[0-9a-f]+) len=(?P<len>0x[0-9a-f]+) "
    r"prot=(?P<prot>\S+) flags=(?P<flags>\S+) off=(?P<off>0x[0-9a-f]+) -> (?P<result>.*)$")
MARKER_RE = re.compile(r"^path access " + re.escape(MARKER_PREFIX) + r"(?P<name>\S+) -> host$")
CALL_MARKER_RE = re.compile(r"^path access " + re.escape(CALL_MARKER_PREFIX) +
                            r"(?P<call>\S+) -> host$")


def fields_text(fields):
    return " ".join("%s=%s" % (k, t) for k, (_, t) in fields.items())


def normalise_ioctl(m, syms):
    name = m.group("name")
    if name == "?":
        name = REQUEST_NAMES.get(int(m.group("req"), 16), "?")
    din = bytes.fromhex(m.group("in"))
    dout = bytes.fromhex(m.group("out")) if m.group("out") is not None else None
    fin = decode(name, din, syms) if din else OrderedDict()
    text = "ioctl %s %s size=%s" % (m.group("dev"), name, m.group("size"))
    if fin is None:  # no layout: raw bytes
        text += " req=%s in=%s" % (m.group("req"), m.group("in"))
        text += "..." if m.group("intrunc") else ""
        text += " -> %s" % m.group("result")
        if dout is not None:
            text += " out=%s" % m.group("out") + ("..." if m.group("outtrunc") else "")
        return text + " [raw]" + m.group("tail")
    if fin:
        text += " in{%s}" % fields_text(fin)
    result = m.group("result")
    text += " -> %s" % result
    if dout is not None:
        hint = None
        if name == "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU" and len(din) >= 40:
            hint = int.from_bytes(din[36:40], "little")
        fout = decode(name, dout, syms, hint, "out")
        always = ALWAYS_OUT.get(name, ()) if result == "ok" else ()
        shown = OrderedDict((k, v) for k, v in fout.items()
                            if k in always or k not in fin or fin[k][0] != v[0])
        if shown or not din:
            text += " out{%s}" % fields_text(shown)
    return text + m.group("tail")


def normalise_mmap(m, syms):
    addr = int(m.group("addr"), 16)
    off = int(m.group("off"), 16)
    off_text = m.group("off") if m.group("dev") == "kfd" else syms.name("offset", off)
    result = m.group("result")
    rm = re.match(r"^ok addr=(0x[0-9a-f]+)$", result)
    if rm:
        result = "ok addr=%s" % syms.va(int(rm.group(1), 16))
    return "mmap %s addr=%s len=%s prot=%s flags=%s off=%s -> %s" % (
        m.group("dev"), syms.va(addr), m.group("len"), m.group("prot"),
        m.group("flags"), off_text, result)


def split_trace(path, with_mmap):
    """scenario -> [normalised lines], in marker order. Also the scenario
    order and the lines seen before the first marker that were dropped."""
    scenarios = OrderedDict()
    current = None
    syms = Symbols()
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            mk = MARKER_RE.match(line)
            if mk:
                current = mk.group("name")
                if current in scenarios:
                    raise ValueError("%s: scenario %s marked twice" % (path, current))
                scenarios[current] = []
                syms = Symbols()
                continue
            if current is None:
                continue
            mc = CALL_MARKER_RE.match(line)
            if mc:
                scenarios[current].append("= " + mc.group("call"))
                continue
            mi = IOCTL_RE.match(line)
            if mi:
                scenarios[current].append(normalise_ioctl(mi, syms))
                continue
            mm = MMAP_RE.match(line)
            if mm and with_mmap:
                scenarios[current].append(normalise_mmap(mm, syms))
    return scenarios


def read_output(path):
    """scenario -> [API lines without the scenario name]; skipped scenarios
    map to the string reason."""
    out = OrderedDict()
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line:
                continue
            if line.startswith("exit="):
                out.setdefault("(exit)", []).append(line)
                continue
            sc, _, rest = line.partition(" ")
            if rest == "begin":
                out.setdefault(sc, [])
                continue
            if rest.startswith("skipped reason="):
                out[sc] = rest[len("skipped reason="):]
                continue
            entry = out.setdefault(sc, [])
            if isinstance(entry, list):
                entry.append(rest)
    return out


# ---- known differences ---------------------------------------------------------

STREAMS = ("api", "ioctl", "any")


def read_known(path):
    """(drops, rewrites): drops are [(scenario_re, stream, line_re, reason)];
    rewrites are [(scenario_re, stream, pattern_re, replacement, reason)], from
    five-field lines whose second field is rewrite-api|rewrite-ioctl|rewrite-any.
    Raises ValueError when the file is malformed."""
    drops, rewrites = [], []
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = line.split("\t")
            rewrite = len(parts) == 5 and parts[1].startswith("rewrite-") and \
                parts[1][len("rewrite-"):] in STREAMS
            if rewrite:
                if not all(p.strip() for p in (parts[0], parts[2], parts[4])):
                    raise ValueError("%s:%d: empty field in a rewrite entry" % (path, number))
            elif len(parts) != 4 or not all(p.strip() for p in parts) or parts[1] not in STREAMS:
                raise ValueError("%s:%d: expected scenario-regex<TAB>api|ioctl|any<TAB>"
                                 "line-regex<TAB>reason, or scenario-regex<TAB>rewrite-<stream>"
                                 "<TAB>pattern<TAB>replacement<TAB>reason" % (path, number))
            try:
                if rewrite:
                    rewrites.append((re.compile(parts[0]), parts[1][len("rewrite-"):],
                                     re.compile(parts[2]), parts[3], parts[4]))
                else:
                    drops.append((re.compile(parts[0]), parts[1], re.compile(parts[2]), parts[3]))
            except re.error as e:
                raise ValueError("%s:%d: bad regex: %s" % (path, number, e))
    return drops, rewrites


def apply_rewrites(scenario, stream, lines, rewrites, counts):
    """Applies every matching rewrite (re.sub) to each line, on both sides, so
    the rest of the line is still compared; counts changed lines per reason."""
    out = []
    for line in lines:
        for sre, st, pre, repl, why in rewrites:
            if (st == stream or st == "any") and sre.fullmatch(scenario):
                new = pre.sub(repl, line)
                if new != line:
                    counts[why] = counts.get(why, 0) + 1
                    line = new
        out.append(line)
    return out


def drop_known(scenario, stream, lines, known, counts):
    kept = []
    for line in lines:
        reason = None
        for sre, st, lre, why in known:
            if (st == stream or st == "any") and sre.fullmatch(scenario) and lre.fullmatch(line):
                reason = why
                break
        if reason is None:
            kept.append(line)
        else:
            counts[reason] = counts.get(reason, 0) + 1
    return kept


# --reference value -> the name the report uses.
REFERENCE_NAMES = {"debian": "Debian", "upstream": "upstream"}


def diff_lines(a, b):
    """'-' reference-only and '+' ours-only lines, in order."""
    out = []
    sm = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        out += ["- " + x for x in a[i1:i2]]
        out += ["+ " + x for x in b[j1:j2]]
    return out


def compare(args):
    try:
        known, rewrites = read_known(args.known)
    except (OSError, ValueError) as e:
        print("mem_compare: %s" % e, file=sys.stderr)
        return 2
    try:
        deb_out = read_output(args.reference_out)
        our_out = read_output(args.ours_out)
        deb_tr = split_trace(args.reference_trace, args.with_mmap)
        our_tr = split_trace(args.ours_trace, args.with_mmap)
    except (OSError, ValueError) as e:
        print("mem_compare: %s" % e, file=sys.stderr)
        return 2
    ref = REFERENCE_NAMES[args.reference]
    if deb_out.get("(exit)") != ["exit=0"]:
        print("mem_compare: the %s run failed on %s (%s); no reference" %
              (ref, args.target, deb_out.get("(exit)")), file=sys.stderr)
        return 2
    deb_names = [s for s in deb_out if s != "(exit)"]
    missing_markers = [s for s in deb_names if s not in deb_tr]
    if not deb_names or missing_markers:
        print("mem_compare: the %s trace lacks the markers of %s; is KFDSIM_TRACE set and "
              "the preload loaded?" % (ref, missing_markers or "every scenario"), file=sys.stderr)
        return 2

    order = list(deb_names) + [s for s in our_out if s not in deb_out and s != "(exit)"]
    order.append("(exit)")
    counts = {}
    report, records = [], []
    unexplained = unreferenced = 0
    for sc in order:
        d_api, o_api = deb_out.get(sc, []), our_out.get(sc, [])
        if isinstance(d_api, str):  # the reference skipped it: nothing to compare with
            unreferenced += 1
            ours_lines = o_api if isinstance(o_api, list) else []
            report.append("unreferenced %s: %s has no %s (ours: %d API line(s), %d "
                          "ioctl line(s))" % (sc, "Debian 5.2.3" if args.reference == "debian"
                                              else ref, "such entry point or flag" if d_api ==
                                              "not-in-5.2.3" else d_api, len(ours_lines),
                                              len(our_tr.get(sc, []))))
            continue
        if isinstance(o_api, str):
            o_api = ["skipped reason=" + o_api]
        streams = [("api", d_api, o_api)]
        if sc != "(exit)":
            streams.append(("ioctl", deb_tr.get(sc, []), our_tr.get(sc, ["<no marker>"])))
        for stream, d, o in streams:
            d = drop_known(sc, stream, apply_rewrites(sc, stream, d, rewrites, counts), known, counts)
            o = drop_known(sc, stream, apply_rewrites(sc, stream, o, rewrites, counts), known, counts)
            delta = diff_lines(d, o)
            if not delta:
                continue
            unexplained += 1
            report.append("DIFF  %s %s: %d line(s) (- %s, + ours)" % (sc, stream, len(delta), ref))
            shown = delta[:args.max_lines]
            report += ["      " + x for x in shown]
            if len(delta) > len(shown):
                report.append("      ... %d more" % (len(delta) - len(shown)))
            records += ["%s\t%s\t%s" % (sc, stream, x) for x in delta]
    for line in report:
        print(line)
    for reason, n in counts.items():
        print("known %d line(s): %s" % (n, reason))
    print("mem_compare: %s: %d scenario(s); %d unexplained difference(s) in %d stream(s), "
          "%d known line(s), %d without %s reference" %
          (args.target, len(order) - 1, sum(1 for r in records), unexplained,
           sum(counts.values()), unreferenced, ("an " if ref[0] in "aeiou" else "a ") + ref))
    if args.keep:
        with open(args.keep + "/differences.txt", "w") as f:
            f.write("".join(r + "\n" for r in records))
        for label, tr in ((args.reference, deb_tr), ("ours", our_tr)):
            with open("%s/%s.norm" % (args.keep, label), "w") as f:
                for sc, lines in tr.items():
                    f.write("== %s\n" % sc)
                    f.write("".join(x + "\n" for x in lines))
    return 1 if unexplained else 0


def normalise(args):
    tr = split_trace(args.trace, args.with_mmap)
    for sc, lines in tr.items():
        print("== %s" % sc)
        for x in lines:
            print(x)
    return 0


def check_layouts(args):
    sizes = {}
    for path, prefix in ((args.abi, ""), (args.drm_abi, "drm::")):
        with open(path) as f:
            text = f.read()
        for m in re.finditer(r"static_assert\(sizeof\((\w+)\) == (?:\(sizeof\(void\*\) == 8 \? )?"
                             r"(\d+)", text):
            sizes[prefix + m.group(1)] = int(m.group(2))
    bad = 0
    for name, (struct, fields) in sorted(LAYOUTS.items()):
        total = sum(size for _, size, _ in fields)
        if struct not in sizes:
            print("check-layouts: %s: %s has no static_assert'ed size in the ABI headers" %
                  (name, struct))
            bad += 1
        elif sizes[struct] != total:
            print("check-layouts: %s: fields add up to %d bytes, %s is %d" %
                  (name, total, struct, sizes[struct]))
            bad += 1
    print("check-layouts: %d layout(s), %d mismatch(es)" % (len(LAYOUTS), bad))
    return 1 if bad else 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    n = sub.add_parser("normalise")
    n.add_argument("--trace", required=True)
    n.add_argument("--with-mmap", action="store_true")
    c = sub.add_parser("compare")
    c.add_argument("--reference", choices=sorted(REFERENCE_NAMES), default="debian")
    c.add_argument("--reference-out", "--debian-out", dest="reference_out", required=True)
    c.add_argument("--reference-trace", "--debian-trace", dest="reference_trace", required=True)
    for a in ("--ours-out", "--ours-trace", "--known", "--target"):
        c.add_argument(a, required=True)
    c.add_argument("--with-mmap", action="store_true")
    c.add_argument("--keep")
    c.add_argument("--max-lines", type=int, default=40)
    k = sub.add_parser("check-layouts")
    k.add_argument("--abi", required=True)
    k.add_argument("--drm-abi", required=True)
    args = p.parse_args()
    return {"normalise": normalise, "compare": compare, "check-layouts": check_layouts}[
        args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
