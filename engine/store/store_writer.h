// The one writer of the studio database: a thread that applies queued writes in batched
// transactions and keeps metric summaries current as points arrive.
// Thread-safe: any thread may call any method; writes are applied in call order.
#pragma once

#include "engine/store/records.h"
#include "engine/store/tuning_records.h"

#include <functional>
#include <memory>
#include <string>

namespace studio::store {

// A write the database refused. A record's own error costs that record only; a lost batch
// (disk full, I/O error, the database locked too long) means none of the batch was committed.
struct WriteError {
    ComponentId component = 0; // 0: not one job's (a lost batch concerns every job in it)
    std::string message;
    bool batchLost = false;
};

struct NewComponent {
    std::string name;
    std::string displayName;
    std::string experiment; // empty: "Unassigned"
    std::string trial;      // empty: a trial named after the job
    std::string status = "InProgress";
    std::string secondaryStatus = "Starting";
    std::string statusMessage; // the first status transition's message
    std::string instanceType = "local";
    int instanceCount = 1;
    int processesPerHost = 1;
    std::string entryPoint;
    std::string specJson;
    std::string jobDir;
    std::string owner; // "host:pid:start": the process that runs the job
    std::string cluster = "local";
    double created = 0;
    std::vector<ParameterRow> parameters;
    std::map<std::string, std::string> tags;
};

class StoreWriter {
public:
    // Opens (creating and migrating) the database; throws std::runtime_error naming the file.
    explicit StoreWriter(const std::string& path);
    ~StoreWriter(); // applies everything queued, then stops the thread
    StoreWriter(const StoreWriter&) = delete;
    StoreWriter& operator=(const StoreWriter&) = delete;

    const std::string& path() const;

    // Waits for the writer thread; throws std::runtime_error when the name is taken.
    ComponentId createComponent(const NewComponent& c);
    // Records a job that ended elsewhere (an import) whole, in one transaction: the component
    // as createComponent, its start and end times, every point of its series (in the order
    // given, the last one the summary's last) and their summaries. A failure leaves nothing of
    // it behind. Waits; throws std::runtime_error naming the job.
    ComponentId importComponent(const NewComponent& c, double started, double ended,
                                const std::vector<MetricSeries>& series);
    // Experiment.create and Trial.create: wait for the writer thread; throw std::runtime_error
    // when the name is taken (or, for a trial, when its experiment does not exist).
    void createExperiment(const std::string& name, const std::string& description, double created);
    void createTrial(const std::string& experiment, const std::string& trial, double created);
    // Moves a component into a trial (Trial.add_trial_component); the trial it leaves is
    // removed when nothing remains in it. Waits; throws when the trial does not exist.
    void assignComponent(ComponentId id, const std::string& experiment, const std::string& trial);
    // Adds or replaces one parameter of a component (a Tracker's log_parameter).
    void setParameter(ComponentId id, const ParameterRow& p);

    void setStatus(ComponentId id, const std::string& status, const std::string& secondary,
                   const std::string& message, double time);
    void setFailureReason(ComponentId id, const std::string& reason);
    void setStarted(ComponentId id, double time);
    void setEnded(ComponentId id, double time);
    void addMetric(ComponentId id, const std::string& name, const MetricPoint& p);
    // Removes points above a step (a resumed attempt recomputes them) and rebuilds summaries.
    void truncateMetrics(ComponentId id, std::int64_t afterStep);
    void addSystemSample(ComponentId id, int node, const std::string& device,
                         const std::string& metric, double time, double value);
    void addStepTiming(ComponentId id, const StepTiming& t);
    void addTensorReduction(ComponentId id, const TensorReduction& t);
    void addFrameworkEvent(ComponentId id, const FrameworkEventRow& f);
    void addCheckpoint(ComponentId id, const CheckpointRow& c);
    void upsertNode(ComponentId id, const NodeRow& n);
    // Adds or replaces a rank's row; an empty device keeps the one stored before.
    void upsertRank(ComponentId id, const RankRow& r);
    void upsertLogFile(ComponentId id, const LogFileRow& l);
    void setRuleStatus(ComponentId id, const RuleStatusRow& r);
    void addFinding(ComponentId id, const FindingRow& f);
    void addNotification(ComponentId id, double time, const std::string& rule,
                         const std::string& message);
    void addBillingSegment(ComponentId id, const BillingSegment& s);
    void setArtifact(ComponentId id, const ArtifactRow& a);
    // Adds or replaces the document of (topic, node, rank).
    void setFacts(ComponentId id, const FactsRow& f);
    void setTag(ComponentId id, const std::string& key, const std::string& value);
    void removeTag(ComponentId id, const std::string& key);
    void setNotes(ComponentId id, const std::string& notes);
    void addProtocolErrors(ComponentId id, int count);
    // Marks jobs left InProgress by a studio process that no longer runs as Failed; jobs whose
    // launchers run detached (they have journals), or that Slurm runs, are left for a studio to
    // take over. isAlive(owner) tells whether the owner process still runs. Waits; returns their
    // names.
    std::vector<std::string> failAbandoned(bool (*isAlive)(const std::string& owner));

    // Clusters. saveCluster keeps the creation time of a cluster it replaces; both wait and
    // throw std::runtime_error on a database error. removeCluster: false when none was there.
    void saveCluster(const ClusterRow& c);
    bool removeCluster(const std::string& name);
    void setClusterCheck(const std::string& name, const std::string& checkJson);

    // Jobs that outlive the studio (engine/control): each node's journal and stored offset,
    // the job's cluster and what another studio process needs to take the job over.
    void upsertJournal(ComponentId id, const JournalRow& j);
    // A Slurm job of the component, inserted or replaced whole (keyed by its Slurm job id).
    void upsertSlurmJob(ComponentId id, const SlurmJobRow& j);
    void setJournalOffset(ComponentId id, int node, std::int64_t offset);
    void setJournalState(ComponentId id, int node, const std::string& state, double since,
                         const std::string& message);
    void setRunState(ComponentId id, const std::string& json);
    void setOwner(ComponentId id, const std::string& owner);
    // Takes a job over when its owner is still `expected`; waits; false when another process
    // was first.
    bool claimOwner(ComponentId id, const std::string& expected, const std::string& owner);

    // Tuning jobs. createTuningJob waits and throws std::runtime_error when the name is taken.
    TuningId createTuningJob(const NewTuningJob& t);
    // A terminal status sets the end time; message says why it ended.
    void setTuningStatus(TuningId id, const std::string& status, const std::string& message,
                         double time);
    void setTuningOwner(TuningId id, const std::string& owner);
    // Takes a tuning job over when its owner is still `expected`; waits; false when another
    // process was first.
    bool claimTuningOwner(TuningId id, const std::string& expected, const std::string& owner);
    // A training job the tuning job launched (row.ordinal, component, hyperparameters, point,
    // bracket, state); inserted or replaced whole.
    void putTuningTrainingJob(TuningId id, const TuningTrainingJobRow& row);
    // How a training job ended as the search sees it.
    void setTuningTrainingOutcome(TuningId id, int ordinal, const std::string& state,
                                  std::optional<double> objective, bool stoppedEarly,
                                  const std::string& stopReason);

    // Writes this thread queues between beginGroup() and endGroup() are committed in one
    // transaction (a journal chunk's events with the offset after them). Calls that wait for
    // the writer (flush, createComponent, ...) inside a group queue what it holds first.
    void beginGroup();
    void endGroup();

    // Blocks until every write queued before the call is committed.
    void flush();
    // The last write error, "" when none (write errors are reported, never thrown at callers).
    std::string lastError() const;
    // Frees the space kept beside the database (<path>.reserve) so that how jobs ended can still
    // be recorded on a full disk. The writer calls it itself when a batch meets a full disk;
    // true when this call freed it.
    bool releaseReserve();
    // Called on the writer thread for every failed write, before the next batch starts. Set it
    // before writing; it must not call back into the writer and wait.
    void setErrorHandler(std::function<void(const WriteError&)> handler);

private:
    struct Impl;
    // Runs work on the writer thread and waits for it; its exception is rethrown here.
    void runAndWait(const std::function<void(Impl&)>& work);
    // Throws std::runtime_error when component id (name) is not in the database once committed.
    void checkCommitted(ComponentId id, const std::string& name);
    // UPDATE <table> SET owner=owner WHERE id=id AND owner=expected, committed; true when done.
    bool claimRow(const char* table, std::int64_t id, const std::string& expected,
                  const std::string& owner);
    std::unique_ptr<Impl> d;
};

} // namespace studio::store
