"""driver_registers.h agrees with Vela's own Ethos-U55/U65 register description (ethosu/vela/ethos_u55_regs),
the table the command streams the driver runs are generated from: every offset and every bit field."""

from __future__ import annotations

import ctypes
import os
import pathlib
import re

import pytest
from ethosu.vela.ethos_u55_regs import ethos_u55_regs as vela

HEADER = pathlib.Path(os.path.abspath(__file__)).parent / "driver_registers.h"

# Our register constant -> Vela's register (its offset enum member).
OFFSETS = {
    "kId": vela.BASE.ID,
    "kStatus": vela.BASE.STATUS,
    "kCmd": vela.BASE.CMD,
    "kReset": vela.BASE.RESET,
    "kQbase": vela.BASE.QBASE0,
    "kQbaseHigh": vela.BASE.QBASE1,
    "kQread": vela.BASE.QREAD,
    "kQconfig": vela.BASE.QCONFIG,
    "kQsize": vela.BASE.QSIZE,
    "kProt": vela.BASE.PROT,
    "kConfig": vela.BASE.CONFIG,
    "kRegionConfig": vela.BASE.REGIONCFG,
    "kAxiLimit0": vela.BASE.AXI_LIMIT0,
    "kBasePointer0": vela.BASE_POINTERS.BASEP0,
    "kPmcr": vela.PMU.PMCR,
    "kPmcntenset": vela.PMU.PMCNTENSET,
    "kPmccntrLow": vela.PMU.PMCCNTR_LO,
    "kPmccntrHigh": vela.PMU.PMCCNTR_HI,
}

# (our namespace, our field) -> (Vela's register union, its field).
FIELDS = {
    ("id", "kArchPatch"): (vela.id_r, "arch_patch_rev"),
    ("id", "kArchMinor"): (vela.id_r, "arch_minor_rev"),
    ("id", "kArchMajor"): (vela.id_r, "arch_major_rev"),
    ("status", "kRunning"): (vela.status_r, "state"),
    ("status", "kIrqRaised"): (vela.status_r, "irq_raised"),
    ("status", "kBusError"): (vela.status_r, "bus_status"),
    ("status", "kResetInProgress"): (vela.status_r, "reset_status"),
    ("status", "kCommandParseError"): (vela.status_r, "cmd_parse_error"),
    ("status", "kCommandEndReached"): (vela.status_r, "cmd_end_reached"),
    ("status", "kWatchdogFault"): (vela.status_r, "wd_fault"),
    ("status", "kEccFault"): (vela.status_r, "ecc_fault"),
    ("cmd", "kTransitionToRunning"): (vela.cmd_r, "transition_to_running_state"),
    ("cmd", "kClearIrq"): (vela.cmd_r, "clear_irq"),
    ("security", "kPrivilege"): (vela.prot_r, "active_cpl"),
    ("security", "kNonSecure"): (vela.prot_r, "active_csl"),
    ("config", "kMacsPerCycleLog2"): (vela.config_r, "macs_per_cc"),
    ("config", "kCommandStreamVersion"): (vela.config_r, "cmd_stream_version"),
    ("config", "kShramKib"): (vela.config_r, "shram_size"),
    ("config", "kProduct"): (vela.config_r, "product"),
    ("axi_limit", "kBurstBoundary"): (vela.axi_limit0_r, "max_beats"),
    ("axi_limit", "kMemoryType"): (vela.axi_limit0_r, "memtype"),
    ("axi_limit", "kMaxOutstandingReadsMinus1"): (vela.axi_limit0_r, "max_outstanding_read_m1"),
    ("axi_limit", "kMaxOutstandingWritesMinus1"): (vela.axi_limit0_r, "max_outstanding_write_m1"),
    ("pmu", "kCountersEnable"): (vela.pmcr_r, "cnt_en"),
    ("pmu", "kCycleCounterReset"): (vela.pmcr_r, "cycle_cnt_rst"),
    ("pmu", "kCycleCounterEnable"): (vela.pmcntenset_r, "cycle_cnt"),
    ("pmu", "kCycleCounterHigh"): (vela.pmccntr_hi_r, "cycle_cnt_hi"),
}


def _header() -> str:
    return HEADER.read_text()


def _namespace(text: str, name: str) -> str:
    match = re.search(rf"namespace {name} {{(.*?)}}  // namespace {name}", text, re.S)
    assert match, f"namespace {name} not found in {HEADER.name}"
    return match.group(1)


def _vela_field(register: type[ctypes.Union], field: str) -> tuple[int, int]:
    shift = 0
    for name, _, width in register._bitfield._fields_:
        if name == field:
            return shift, width
        shift += width
    raise KeyError(f"{register.__name__} has no field {field}")


@pytest.mark.parametrize("constant", sorted(OFFSETS))
def test_offsets_match_vela(constant: str):
    match = re.search(rf"constexpr uint32_t {constant} = (0x[0-9A-Fa-f]+);", _namespace(_header(), "reg"))
    assert match, f"reg::{constant} not found"
    assert int(match.group(1), 16) == OFFSETS[constant].value


def test_base_pointers_are_64_bit_pairs():
    # Eight regions, each a low and a high word: BASEP0..BASEP15 in Vela's flat list of words.
    text = _namespace(_header(), "reg")
    assert "constexpr uint32_t kBasePointerStride = 8;" in text
    assert vela.BASE_POINTERS.BASEP15.value - vela.BASE_POINTERS.BASEP0.value + 4 == 8 * 8


@pytest.mark.parametrize("namespace,field", sorted(FIELDS))
def test_fields_match_vela(namespace: str, field: str):
    match = re.search(rf"constexpr RegisterField {field}{{(\d+), (\d+)}};", _namespace(_header(), namespace))
    assert match, f"{namespace}::{field} not found"
    register, vela_field = FIELDS[(namespace, field)]
    assert (int(match.group(1)), int(match.group(2))) == _vela_field(register, vela_field)
