// A page of the launch dialog: a titled, scrollable form over a part of the spec document. It
// loads its fields from the document, writes them back, and names the widgets that show the
// validation problems of the JSON paths it owns.
#pragma once

#include "engine/spec/spec_error.h"
#include "models/launch/spec_field.h"

#include <QString>
#include <QWidget>

#include <functional>
#include <vector>

class QAbstractButton;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;
class QAbstractItemModel;
class QTableView;
class QVBoxLayout;

namespace studio::widgets {

class FieldMessage;

class SpecSection : public QWidget {
    Q_OBJECT
public:
    // Where the problems of the paths at or under pattern ("rules[].parameters") are shown.
    struct ErrorTarget {
        QString pattern;
        FieldMessage* message = nullptr;
        std::function<QString(const spec::SpecError&)> describe; // empty: the default text
    };

    SpecSection(const QString& title, const QString& subtitle, QWidget* parent = nullptr);

    const QString& title() const { return m_title; }
    // Shows the document's values; emits nothing.
    void load(const models::SpecDocument& doc);
    // Writes the fields that changed since load() into doc (a copy of the loaded document).
    virtual void save(models::SpecDocument& doc) const;

    const std::vector<ErrorTarget>& errorTargets() const { return m_targets; }
    // The problems routed to this page, for item models that mark rows; the messages under the
    // fields are set by the dialog.
    virtual void showProblems(const std::vector<spec::SpecError>& problems);

    // The text a target shows for a problem: the message, prefixed by what the path names below
    // the target ("lr: must be a number").
    static QString describe(const ErrorTarget& target, const spec::SpecError& error);
    // Monospace, for names and values that are code.
    static QFont codeFont();

Q_SIGNALS:
    void changed();

protected:
    virtual void beforeLoad(const models::SpecDocument& doc);
    virtual void afterLoad(const models::SpecDocument& doc);
    bool loading() const { return m_loading; }
    void notifyChanged();

    QVBoxLayout* body() const { return m_body; }
    // A titled card with a form inside; description is a line of help at its top. group
    // receives the whole (title and card, to show or hide); with toggle, the title is a check
    // box that enables the card.
    QFormLayout* addGroup(const QString& title, const QString& description = {},
                          QWidget** group = nullptr, QCheckBox** toggle = nullptr);
    QFormLayout* addForm(QVBoxLayout* into);
    // Adds a labelled field with its problem message (and a line of help) to a form; problems of
    // pattern's paths go there and outline problemField (default: field itself, which may be a
    // row holding it and a browse button).
    FieldMessage* addField(QFormLayout* form, const QString& label, QWidget* field,
                           const QString& pattern, const QString& hint = {},
                           QWidget* problemField = nullptr);
    // A line edit with a "Browse…" button beside it.
    static QWidget* withButton(QWidget* field, QWidget* button);
    // A compact field with a note after it ("86400 s  24 h 00 min").
    static QWidget* withNote(QWidget* field, QWidget* note);
    // A field cell (field, message, help) without a form, for tables and custom layouts.
    QWidget* fieldCell(QWidget* field, FieldMessage* message, const QString& hint = {});
    FieldMessage* addTarget(QWidget* field, const QString& pattern,
                            std::function<QString(const spec::SpecError&)> describe = {});
    // Problems of pattern's paths also go to an existing message.
    void alsoShow(FieldMessage* message, const QString& pattern);
    static QLabel* hintLabel(const QString& text);
    // A table in the dialog's style; emptyText is shown while the model has no rows.
    static QTableView* tableView(const QString& objectName, QAbstractItemModel* model,
                                 const QString& emptyText);

    models::SpecField& bind(models::SpecField field);
    // Change signals of form widgets become changed().
    void watch(QLineEdit* w);
    void watch(QSpinBox* w);
    void watch(QDoubleSpinBox* w);
    void watch(QComboBox* w);
    void watch(QAbstractButton* w);

private:
    QString m_title;
    QVBoxLayout* m_body = nullptr;
    std::vector<models::SpecField> m_fields;
    std::vector<ErrorTarget> m_targets;
    bool m_loading = false;
};

} // namespace studio::widgets
