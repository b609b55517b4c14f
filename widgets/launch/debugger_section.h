// The "Debugger" page: the Debugger hook and its tensor collections, and the profiler (system
// monitor interval, framework profiling window).
#pragma once

#include "widgets/launch/spec_section.h"

class QCheckBox;
class QComboBox;
class QMenu;
class QPushButton;
class QSpinBox;
class QTableView;

namespace studio::models {
class CollectionModel;
} // namespace studio::models

namespace studio::widgets {

class DebuggerSection : public SpecSection {
    Q_OBJECT
public:
    explicit DebuggerSection(QWidget* parent = nullptr);

    models::CollectionModel* collections() const { return m_collections; }
    void showProblems(const std::vector<spec::SpecError>& problems) override;

private:
    void buildHookGroup();
    void buildProfilerGroup();
    void buildFrameworkGroup();
    void connectFields();
    void bindHook();
    void bindProfiler();
    void afterLoad(const models::SpecDocument& doc) override;
    void updateEnabled();
    void fillAddMenu();
    void addCollection(const QString& name);
    models::SpecDocument hookValue() const;
    void showHook(const models::SpecDocument& v);
    QString describeCollectionProblem(const spec::SpecError& e) const;
    static void applyHook(models::SpecDocument& doc, const models::SpecDocument& v);

    QCheckBox* m_hook = nullptr;
    models::CollectionModel* m_collections = nullptr;
    QTableView* m_view = nullptr;
    QPushButton* m_add = nullptr;
    QMenu* m_addMenu = nullptr;
    QPushButton* m_remove = nullptr;
    QCheckBox* m_profiler = nullptr;
    QComboBox* m_interval = nullptr;
    QCheckBox* m_framework = nullptr;
    QSpinBox* m_startStep = nullptr;
    QSpinBox* m_numSteps = nullptr;
};

} // namespace studio::widgets
