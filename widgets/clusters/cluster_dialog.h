// The dialog that adds a cluster or edits one: name, hosts (one [user@]host[:port] a line), key
// and known_hosts files, workdir, install folder, rendezvous address, socket interface, host
// timeout, and whether the check that follows saving may trust host keys seen for the first
// time. Every change is validated at once; each problem shows under its field and Save stays
// disabled while there are any. The dialog saves nothing: the caller reads cluster().
// GUI thread only.
#pragma once

#include "engine/remote/cluster.h"

#include <QDialog>
#include <QStringList>

#include <map>
#include <string>
#include <vector>

class QCheckBox;
class QFormLayout;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

namespace studio::models {
struct ClusterForm;
} // namespace studio::models

namespace studio::widgets {

class FieldMessage;

class ClusterDialog : public QDialog {
    Q_OBJECT
public:
    enum class Mode { Add, Edit };

    // takenNames: the clusters that exist; an added cluster may not take one of their names.
    ClusterDialog(Mode mode, std::vector<std::string> takenNames, QWidget* parent = nullptr);

    // Shows a cluster (Edit: its name cannot change, jobs refer to it).
    void setCluster(const remote::ClusterConfig& c);
    // The cluster as entered, paths made absolute.
    remote::ClusterConfig cluster() const;
    bool acceptNewHostKeys() const;
    // Every problem, as "field: message".
    QStringList problems() const;

private:
    models::ClusterForm form() const;
    QFormLayout* buildForm();
    void validate();
    // key: the field's name in the form's problems ("" for a field without any); outlined: the
    // widget a problem outlines when field is a row holding it.
    QWidget* addField(QFormLayout* form, const QString& label, QWidget* field,
                      const std::string& key, const QString& hint, QWidget* outlined = nullptr);
    QWidget* withBrowse(QLineEdit* edit, const QString& title);

    Mode m_mode;
    std::vector<std::string> m_taken;
    QLineEdit* m_name;
    QPlainTextEdit* m_hosts;
    QLineEdit* m_identity;
    QLineEdit* m_knownHosts;
    QLineEdit* m_workdir;
    QLineEdit* m_installDir;
    QLineEdit* m_rendezvous;
    QLineEdit* m_socketIfname;
    QSpinBox* m_hostTimeout;
    QCheckBox* m_acceptNewKeys;
    QPushButton* m_save;
    std::map<std::string, FieldMessage*> m_messages; // field key -> its message
    QStringList m_problems;
};

} // namespace studio::widgets
