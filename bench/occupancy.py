#!/usr/bin/env python3
"""How many work-items each kernel leaves room for on one NVIDIA SM, from
the registers that kernel-info's report gives (NVIDIA's -cl-nv-verbose log):

    build/bin/kernel-info --step 6 --filter box:15 --platform NVIDIA | python3 bench/occupancy.py
    python3 bench/occupancy.py docs/results/kernel-info-h100.txt

Registers are allocated per warp of 32 work-items, in units of 256; a
work-group is resident whole or not at all. The limits default to an H100
(sm_90: 65536 registers, 64 warps, 32 work-groups per SM); --regs, --warps
and --groups change them. Only registers are counted: a work-group's
__local tile (set at launch, not in the report) can lower the figure
further, by the SM's shared memory (228 KiB on the H100) over the tile.
"""
import argparse
import re
import sys

HEADER = re.compile(r"^== (.*) on (.*)$")
REGS = re.compile(r"Used (\d+) registers")
SPILLS = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")


def kernels(text):
    """[(label, registers, spill stores, spill loads)] in report order."""
    out, label = [], None
    spills = (0, 0)
    for line in text.splitlines():
        m = HEADER.match(line)
        if m:
            label = m.group(1)
            continue
        m = SPILLS.search(line)
        if m:
            spills = (int(m.group(1)), int(m.group(2)))
        m = REGS.search(line)
        if m and label:
            out.append((label, int(m.group(1))) + spills)
            label, spills = None, (0, 0)
    return out


def resident(registers, wg, regs_per_sm, max_warps, max_groups):
    """(work-groups per SM, work-items per SM) when registers are the limit."""
    warps_per_group = -(-wg // 32)
    regs_per_warp = -(-registers * 32 // 256) * 256
    by_regs = regs_per_sm // (regs_per_warp * warps_per_group)
    by_warps = max_warps // warps_per_group
    groups = min(by_regs, by_warps, max_groups)
    return groups, groups * wg


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", nargs="?", help="kernel-info's output (default: standard input)")
    parser.add_argument("--wg", type=int, default=256, help="work-items per work-group (default 256)")
    parser.add_argument("--regs", type=int, default=65536, help="registers per SM (default 65536)")
    parser.add_argument("--warps", type=int, default=64, help="resident warps per SM (default 64)")
    parser.add_argument("--groups", type=int, default=32, help="resident work-groups per SM (default 32)")
    args = parser.parse_args()
    try:
        text = open(args.report).read() if args.report else sys.stdin.read()
    except OSError as e:
        print("occupancy.py: {}: {}".format(args.report, e.strerror), file=sys.stderr)
        return 1
    found = kernels(text)
    if not found:
        print("occupancy.py: no 'Used N registers' lines: is this kernel-info's output on NVIDIA?",
              file=sys.stderr)
        return 1
    limit = args.warps * 32
    print("work-group of {}; per SM: {} registers, {} work-items".format(args.wg, args.regs, limit))
    print("{:>9}  {:>6}  {:>9}  {:>10}  {:>9}  kernel".format("registers", "spills", "groups/SM",
                                                             "items/SM", "occupancy"))
    for label, regs, stores, loads in found:
        groups, items = resident(regs, args.wg, args.regs, args.warps, args.groups)
        print("{:>9}  {:>6}  {:>9}  {:>10}  {:>8.1f}%  {}".format(
            regs, "{}/{}".format(stores, loads), groups, items, 100.0 * items / limit, label))
    return 0


if __name__ == "__main__":
    sys.exit(main())
