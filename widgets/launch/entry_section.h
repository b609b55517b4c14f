// The "Entry point" page: a built-in model ("builtin:<model>") or the user's own command, its
// working directory (source_dir), and the "train" input channel.
#pragma once

#include "widgets/launch/spec_section.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QRadioButton;

namespace studio::widgets {

class EntrySection : public SpecSection {
    Q_OBJECT
public:
    explicit EntrySection(QWidget* parent = nullptr);

    // The built-in model chosen; empty when the entry point is a script or command.
    QString builtinModel() const;
    // The base name a job gets without one: the model, or the script's name.
    QString defaultJobName() const;

Q_SIGNALS:
    // The user picked another model, or switched between model and script ("" for a script).
    void builtinModelEdited(const QString& model, const QString& previous);

private:
    void buildKindRow();
    void buildBuiltinGroup();
    void buildScriptGroup();
    void buildInputGroup();
    void connectFields();
    void bindFields();
    void updateKind();
    void browseScript();
    void browseDirectory(QLineEdit* into, const QString& title);
    void browseInputFile();
    models::SpecDocument entryValue() const;
    void showEntry(const models::SpecDocument& v);

    QRadioButton* m_builtin = nullptr;
    QRadioButton* m_script = nullptr;
    QWidget* m_builtinGroup = nullptr;
    QWidget* m_scriptGroup = nullptr;
    QComboBox* m_model = nullptr;
    QLabel* m_modelDescription = nullptr;
    QLineEdit* m_command = nullptr;
    QLineEdit* m_sourceDir = nullptr;
    QLineEdit* m_trainInput = nullptr;
    QString m_lastModel;
};

} // namespace studio::widgets
