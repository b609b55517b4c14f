// The JSON of slurmrestd's API (plugins openapi/v0.0.37 and v0.0.38, as Slurm 22.05 serves
// them): request bodies, replies, and what an error reply means. Pure functions, no network,
// so each shape is unit-tested from canned replies; SlurmClient sends and receives.
#pragma once

#include "engine/remote/slurm_client.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace studio::remote::slurm {

// One entry of a reply's errors[]. The number comes as error_number, error_code or errno
// depending on the version and the endpoint; 0 when none.
struct ApiError {
    int number = 0;
    std::string error;       // "Invalid job id specified"
    std::string description; // "Unable to find JobId=9" (v0.0.37+)
    std::string source;      // "slurm_load_job"

    std::string text() const; // error, then the description when it adds something
};

std::vector<ApiError> parseErrors(const nlohmann::json& reply);

// An HTTP exchange as the client saw it.
struct Exchange {
    bool reached = false;  // false: no HTTP answer (curlError says why)
    bool timedOut = false; // the request ran into the client's timeout
    std::string curlError;
    long status = 0;
    std::string body;
    double seconds = 0; // how long the request took
};

// Who asked, for the messages.
struct ErrorContext {
    std::string cluster;
    std::string url;
    std::string user; // X-SLURM-USER-NAME; "" without a token
    bool tokenSent = false;
    std::string what; // "submit the job", "job 42", "the partitions"
    double timeoutSeconds = 0;
};

// The error an exchange stands for, or nothing when it succeeded (HTTP 200 with a JSON
// body; a 200 reply's errors[] are warnings, such as "Job is in held state").
std::optional<SlurmError> errorOf(const Exchange& x, const ErrorContext& c);

// The API versions named by the `paths` of an OpenAPI document (/slurm/v0.0.NN/...), oldest
// first. Throws std::runtime_error when the text is not such a document.
std::vector<std::string> versionsFromOpenApi(const std::string& text);
// "v0.0.36, v0.0.37"
std::string joinVersions(const std::vector<std::string>& versions);

// The body of POST /slurm/<v>/job/submit. Throws std::invalid_argument naming the field when
// an extra field is not JSON or names a field the studio sets.
std::string submitBody(const SlurmJobRequest& job);
// The job fields submitBody sets itself (an extra field may not name them).
const std::vector<std::string>& studioJobFields();

SlurmJobInfo parseJob(const nlohmann::json& job);
std::vector<SlurmJobInfo> parseJobs(const nlohmann::json& reply);
std::vector<SlurmPartitionInfo> parsePartitions(const nlohmann::json& reply);
std::vector<SlurmNodeInfo> parseNodes(const nlohmann::json& reply);
// "" when the first controller answers UP, else what the reply says.
std::string parsePing(const nlohmann::json& reply);
// meta.Slurm.release ("22.05.8"), "" when absent.
std::string parseRelease(const nlohmann::json& reply);

// A Slurm host list ("n[1-3,7],gpu[01-02]-ib") as names, in order. Throws
// std::invalid_argument on an unbalanced bracket or a bad range.
std::vector<std::string> expandHostlist(const std::string& list);

} // namespace studio::remote::slurm
