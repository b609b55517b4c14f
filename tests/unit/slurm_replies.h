// Replies of slurmrestd 22.05 captured for the Slurm client's tests, and small builders of
// exchanges and error contexts; shared by test_slurm_api and test_slurm_client.
#pragma once

#include "engine/remote/slurm_api.h"

#include <string>

namespace studio::remote::testing {

// Replies captured from slurmrestd 22.05.8 (Debian 12), trimmed to the fields the client reads
// and a few it does not. (No \" inside raw strings here: moc misreads them and skips the file.)
inline constexpr const char* kMeta =
    R"("meta":{"plugin":{"type":"openapi/v0.0.38","name":"Slurm OpenAPI v0.0.38"},)"
    R"("Slurm":{"version":{"major":22,"micro":8,"minor":5},"release":"22.05.8"}})";

inline constexpr const char* kJob38 = R"({"job_id": 29, "name": "t38", "partition": "debug",
 "job_state": "FAILED", "state_reason": "NonZeroExitCode", "state_description": "",
 "exit_code": 19200, "derived_exit_code": 0, "restart_cnt": 2, "submit_time": 1795667475,
 "start_time": 1795667480, "end_time": 1795667481, "time_limit": 2, "nodes": "n[1-2]",
 "node_count": 2, "batch_host": "n1", "user_name": "nobody", "user_id": 65534, "requeue": true,
 "standard_output": "/tmp/jobs/%x-%j.out", "current_working_directory": "/tmp/jobs",
 "job_resources": {"nodes": "n[1-2]", "allocated_cores": 2, "allocated_hosts": 2,
  "allocated_nodes": [
   {"sockets": {"0": {"cores": {"0": "allocated"}}}, "nodename": "n2", "cpus_used": 0},
   {"sockets": {"0": {"cores": {"0": "allocated"}}}, "nodename": "n1", "cpus_used": 0}]}})";

// v0.0.37 keys the allocated nodes "0", "1" without their names; older schemas type some
// numbers as strings.
inline constexpr const char* kJob37 = R"({"job_id": 28, "name": "t37", "partition": "debug",
 "job_state": "CANCELLED", "state_reason": "None", "exit_code": 15, "restart_cnt": "1",
 "submit_time": "1795667475", "start_time": 1795667478, "end_time": 1795667479,
 "nodes": "n[1-2]", "batch_host": "n1", "user_name": "nobody",
 "job_resources": {"nodes": "n[1-2]", "allocated_cpus": 2, "allocated_hosts": 2,
  "allocated_nodes": {"0": {"sockets": {"0": "unassigned"}, "memory": 0, "cpus": 1},
                      "1": {"sockets": {"0": "unassigned"}, "memory": 0, "cpus": 1}}}})";

inline constexpr const char* kPartitions = R"({"partitions": [
 {"flags": ["default"], "preemption_mode": ["disabled"], "default_time_limit": null,
  "maximum_nodes_per_job": -1, "max_time_limit": -1, "min nodes per job": 0, "name": "debug",
  "nodes": "n[1-2]", "state": "UP", "total_cpus": 2, "total_nodes": 2,
  "tres": "cpu=2,mem=2000M,node=2,billing=2"},
 {"flags": [], "max_time_limit": 30, "name": "short", "nodes": "n1", "state": "DOWN",
  "total_cpus": 1, "total_nodes": 1},
 {"flags": [], "max_time_limit": 4294967295, "name": "inf", "nodes": "", "total_cpus": 0,
  "total_nodes": 0}]})";

inline constexpr const char* kNodes = R"({"nodes": [
 {"name": "n1", "address": "127.0.0.1", "hostname": "vm", "state": "idle",
  "state_flags": ["DRAIN"], "cpus": 1, "alloc_cpus": 0, "idle_cpus": 1, "real_memory": 1000,
  "gres": "", "gres_used": "gpu:0", "partitions": ["debug", "short"], "reason": "testing"},
 {"name": "n2", "address": "127.0.0.1", "state": "mixed", "state_flags": [], "cpus": 4,
  "alloc_cpus": 2, "real_memory": 64000, "gres": "gpu:tesla:2", "partitions": ["debug"]}]})";

inline slurm::Exchange reply(long status, const std::string& body, double seconds = 0.05) {
    slurm::Exchange x;
    x.reached = true;
    x.status = status;
    x.body = body;
    x.seconds = seconds;
    return x;
}

inline slurm::ErrorContext context(bool token = true) {
    slurm::ErrorContext c;
    c.cluster = "hpc";
    c.url = token ? "http://10.0.0.5:6820" : "unix:/run/slurmrestd.sock";
    c.user = "ana";
    c.tokenSent = token;
    c.what = "job 42";
    c.timeoutSeconds = 10;
    return c;
}

inline std::string errorsBody(const std::string& errors) {
    return std::string("{") + kMeta + R"(, "errors": )" + errors + "}";
}

} // namespace studio::remote::testing
