// The studio's notebook kernel: JavaScript cells in one QJSEngine per notebook, on the kernel's
// own thread, with the studio API (Estimator, Experiment, Tracker, ExperimentAnalytics, Rule, ...)
// that submits jobs to the application's controller. Cells that wait for a job keep the kernel's
// event loop turning, so custom rules and output updates go on. GUI-thread object; the engine
// lives on the worker thread.
#pragma once

#include "models/notebook/notebook_kernel.h"

#include <memory>

namespace studio::control {
class Controller;
class Tuner;
} // namespace studio::control

namespace studio::notebook {

struct KernelOptions {
    // Relative paths in notebook code (entry points, inputs, files) resolve against this folder:
    // the notebook's own folder.
    QString workingDir;
    // Seconds between the live updates of a running job's output while a cell waits.
    double updateIntervalSeconds = 1.0;
};

class JsKernel : public models::NotebookKernel {
    Q_OBJECT
public:
    // The controller must outlive the kernel.
    JsKernel(control::Controller& controller, KernelOptions options, QObject* parent = nullptr);
    // With the controller's tuner (one per controller, outliving the kernel), notebook code can
    // start tuning jobs (HyperparameterTuner.fit); without one it can only read them.
    JsKernel(control::Controller& controller, control::Tuner& tuner, KernelOptions options,
             QObject* parent = nullptr);
    ~JsKernel() override; // interrupts the running cell and joins the thread

    QString displayName() const override;
    void execute(const QString& cellId, const QString& source) override;
    void interrupt() override;
    void restart() override;
    bool busy() const override;
    void setWorkingDir(const QString& dir) override;

private:
    JsKernel(control::Controller& controller, control::Tuner* tuner, KernelOptions options,
             QObject* parent);
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace studio::notebook
