#pragma once
// The checks, one function a group, each appending its findings in a fixed order. They read only
// the Context, so that a fake host tree or an unpacked bundle gives the same findings a live
// host would.
#include <vector>

#include "doctor/context.h"
#include "doctor/types.h"

namespace dcukit::doctor {

/// host.os, host.kernel, host.cpu, host.memory, host.numa, host.memlock, host.iommu, host.hugepages.
void check_host(const Context& c, std::vector<Finding>& out);
/// driver.gpus, driver.nvidia, driver.amdgpu, driver.hygon, driver.nodes, driver.groups.
void check_driver(const Context& c, std::vector<Finding>& out);
/// toolkit.installs, toolkit.env, toolkit.compiler, toolkit.runtime, toolkit.mismatch,
/// toolkit.cuda_driver, toolkit.dcu_driver.
void check_toolkits(const Context& c, std::vector<Finding>& out);
/// toolkit.cuda_driver, toolkit.dcu_driver: the driver against the toolkit in use (part of
/// check_toolkits).
void check_driver_toolkit(const Context& c, std::vector<Finding>& out);
/// python.interpreter, python.torch, python.torch_runtime, python.cuda_available, python.arch,
/// python.bf16, python.packages.
void check_python(const Context& c, std::vector<Finding>& out);
/// devices.inventory, devices.pcie_link, devices.ecc, devices.clocks (one a device).
void check_devices(const Context& c, std::vector<Finding>& out);
/// placement.affinity, placement.mempolicy, placement.visible_devices, then check_comm's.
void check_placement(const Context& c, std::vector<Finding>& out);
/// placement.nccl_env, placement.job_numa, placement.peer_access: NCCL/RCCL's transport
/// variables, one job's cards across NUMA nodes, direct GPU links without peer access (part of
/// check_placement).
void check_comm(const Context& c, std::vector<Finding>& out);
/// residue.processes, residue.memory.
void check_residue(const Context& c, std::vector<Finding>& out);

/// The version a library's file name carries: "/x/libcudart.so.12.4.127" -> "12.4.127", "" for "libcudart.so".
std::string library_version(const std::string& path);
/// The NUMA node of every GPU that has one, sorted and unique.
std::vector<int> gpu_nodes(const Context& c);
/// The CPUs of a NUMA node (its cpulist under /sys/devices/system/node).
std::vector<int> node_cpus(const Context& c, int node);
/// The DTK (or ROCm) install the HIP runtime resolves to, else the only one; nullptr when none.
const Install* hip_install_in_use(const Context& c);

}  // namespace dcukit::doctor
