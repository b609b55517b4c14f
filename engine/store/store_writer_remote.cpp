// StoreWriter: clusters, node journals and job ownership (jobs that outlive the studio).
#include "engine/store/store_writer_impl.h"

#include <future>

namespace studio::store {

void StoreWriter::saveCluster(const ClusterRow& c) {
    runAndWait([=](Impl& w) {
        w.run("INSERT INTO clusters(name, kind, config, created, updated) VALUES(?,?,?,?,?) "
              "ON CONFLICT(name) DO UPDATE SET kind=excluded.kind, config=excluded.config, "
              "updated=excluded.updated",
              c.name, c.kind, c.config, c.created, c.updated);
    });
}

bool StoreWriter::removeCluster(const std::string& name) {
    bool removed = false;
    runAndWait([&removed, name](Impl& w) {
        removed = w.run("DELETE FROM clusters WHERE name=?", name) > 0;
    });
    return removed;
}

void StoreWriter::setClusterCheck(const std::string& name, const std::string& checkJson) {
    d->pushRun("UPDATE clusters SET last_check=? WHERE name=?", checkJson, name);
}

void StoreWriter::upsertJournal(ComponentId id, const JournalRow& j) {
    d->pushRun("INSERT OR REPLACE INTO journals(component_id, node, attempt, host, path, "
               "launcher_pid, launcher_start, byte_offset, state, state_since, message) "
               "VALUES(?,?,?,?,?,?,?,?,?,?,?)",
               id, j.node, j.attempt, j.host, j.path, j.launcherPid, j.launcherStart, j.offset,
               j.state, optionalTime(j.stateSince), j.message);
}

void StoreWriter::upsertSlurmJob(ComponentId id, const SlurmJobRow& j) {
    d->pushRun("INSERT OR REPLACE INTO slurm_jobs(component_id, job_id, attempt, cluster, "
               "partition, state, reason, nodes, restarts, exit_code, submitted, started, ended, "
               "updated, script) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
               id, j.jobId, j.attempt, j.cluster, j.partition, j.state, j.reason, j.nodes,
               j.restarts, j.exitCode, optionalTime(j.submitted), optionalTime(j.started),
               optionalTime(j.ended), optionalTime(j.updated), j.script);
}

void StoreWriter::setJournalOffset(ComponentId id, int node, std::int64_t offset) {
    d->pushRun("UPDATE journals SET byte_offset=? WHERE component_id=? AND node=?", offset, id,
               node);
}

void StoreWriter::setJournalState(ComponentId id, int node, const std::string& state, double since,
                                  const std::string& message) {
    d->pushRun("UPDATE journals SET state=?, state_since=?, message=? WHERE component_id=? AND "
               "node=?",
               state, optionalTime(since), message, id, node);
}

void StoreWriter::setRunState(ComponentId id, const std::string& json) {
    d->pushRun("UPDATE trial_components SET run_state=? WHERE id=?", json, id);
}

void StoreWriter::setOwner(ComponentId id, const std::string& owner) {
    d->pushRun("UPDATE trial_components SET owner=? WHERE id=?", owner, id);
}

bool StoreWriter::claimOwner(ComponentId id, const std::string& expected,
                             const std::string& owner) {
    return claimRow("trial_components", id, expected, owner);
}

bool StoreWriter::claimRow(const char* table, std::int64_t id, const std::string& expected,
                           const std::string& owner) {
    bool claimed = false;
    const std::string sql = std::string("UPDATE ") + table + " SET owner=? WHERE id=? AND owner=?";
    runAndWait([&claimed, &sql, id, expected, owner](Impl& w) {
        claimed = execute(*w.db, sql, owner, id, expected) > 0;
    });
    flush();
    return claimed;
}

void StoreWriter::beginGroup() {
    Impl::ThreadGroup& g = Impl::threadGroup();
    if (g.owner && g.owner != d.get())
        throw std::logic_error("beginGroup: this thread has a group open on another writer");
    g.owner = d.get();
}

void StoreWriter::endGroup() {
    Impl::ThreadGroup& g = Impl::threadGroup();
    if (g.owner != d.get())
        return;
    g.owner = nullptr;
    d->pushAll(g.ops);
}

} // namespace studio::store
