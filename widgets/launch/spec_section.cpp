#include "widgets/launch/spec_section.h"

#include "widgets/common/field_message.h"

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QScrollArea>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

namespace studio::widgets {
namespace {

// What follows pattern in path, where "[]" in the pattern stands for any "[N]" of the path.
QString remainderAfter(const QString& pattern, const QString& path) {
    qsizetype i = 0;
    for (qsizetype j = 0; j < pattern.size(); ++j) {
        if (i >= path.size())
            return {};
        if (pattern[j] == QLatin1Char('[') && j + 1 < pattern.size() &&
            pattern[j + 1] == QLatin1Char(']') && path[i] == QLatin1Char('[')) {
            while (i < path.size() && path[i] != QLatin1Char(']'))
                ++i;
            ++i;
            ++j;
            continue;
        }
        ++i;
    }
    QString rest = path.mid(i);
    if (rest.startsWith(QLatin1Char('.')))
        rest.remove(0, 1);
    return rest;
}

constexpr int kLabelWidth = 168;

// A white rounded card on the page's grey, holding a group of fields.
class Card : public QWidget {
public:
    Card() { setAttribute(Qt::WA_StyledBackground, false); }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        p.setRenderHint(QPainter::Antialiasing);
        p.setPen(QPen(palette().color(QPalette::Mid), 1));
        p.setBrush(
            palette().color(isEnabled() ? QPalette::Active : QPalette::Disabled, QPalette::Base));
        p.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6);
    }
};

// A table that says what an empty table means instead of showing a blank box.
class HintedTable : public QTableView {
public:
    explicit HintedTable(const QString& emptyText)
        : m_emptyText(emptyText) {}

protected:
    void paintEvent(QPaintEvent* event) override {
        QTableView::paintEvent(event);
        if (!model() || model()->rowCount() > 0 || m_emptyText.isEmpty())
            return;
        QPainter p(viewport());
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(viewport()->rect().adjusted(24, 12, -24, -12),
                   Qt::AlignCenter | Qt::TextWordWrap, m_emptyText);
    }

private:
    QString m_emptyText;
};

} // namespace

SpecSection::SpecSection(const QString& title, const QString& subtitle, QWidget* parent)
    : QWidget(parent)
    , m_title(title) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* scroll = new QScrollArea(this);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    outer->addWidget(scroll);

    auto* page = new QWidget(scroll);
    m_body = new QVBoxLayout(page);
    m_body->setContentsMargins(24, 18, 24, 18);
    m_body->setSpacing(14);
    auto* heading = new QLabel(title, page);
    QFont hf = heading->font();
    hf.setPointSizeF(hf.pointSizeF() * 1.45);
    hf.setWeight(QFont::DemiBold);
    heading->setFont(hf);
    m_body->addWidget(heading);
    if (!subtitle.isEmpty()) {
        auto* sub = hintLabel(subtitle);
        m_body->addWidget(sub);
        m_body->addSpacing(2);
    }
    scroll->setWidget(page);
}

void SpecSection::load(const models::SpecDocument& doc) {
    m_loading = true;
    beforeLoad(doc);
    for (auto& f : m_fields)
        f.load(doc);
    afterLoad(doc);
    m_loading = false;
}

void SpecSection::save(models::SpecDocument& doc) const {
    for (const auto& f : m_fields)
        f.save(doc);
}

void SpecSection::showProblems(const std::vector<spec::SpecError>&) {
}

QString SpecSection::describe(const ErrorTarget& target, const spec::SpecError& error) {
    if (target.describe)
        return target.describe(error);
    const QString message = QString::fromStdString(error.message);
    const QString rest = remainderAfter(target.pattern, QString::fromStdString(error.path));
    return rest.isEmpty() ? message : rest + QStringLiteral(": ") + message;
}

void SpecSection::beforeLoad(const models::SpecDocument&) {
}
void SpecSection::afterLoad(const models::SpecDocument&) {
}

void SpecSection::notifyChanged() {
    if (!m_loading)
        Q_EMIT changed();
}

QFormLayout* SpecSection::addGroup(const QString& title, const QString& description,
                                   QWidget** group, QCheckBox** toggle) {
    auto* outer = new QWidget;
    auto* v = new QVBoxLayout(outer);
    v->setContentsMargins(0, 4, 0, 0);
    v->setSpacing(6);
    QFont headerFont = font();
    headerFont.setWeight(QFont::DemiBold);
    headerFont.setPointSizeF(headerFont.pointSizeF() * 1.05);
    auto* card = new Card;
    if (toggle) {
        auto* check = new QCheckBox(title);
        check->setFont(headerFont);
        v->addWidget(check);
        card->setEnabled(false);
        connect(check, &QCheckBox::toggled, card, &QWidget::setEnabled);
        *toggle = check;
    } else {
        auto* header = new QLabel(title);
        header->setFont(headerFont);
        v->addWidget(header);
    }
    auto* inner = new QVBoxLayout(card);
    inner->setContentsMargins(18, 14, 18, 16);
    inner->setSpacing(10);
    if (!description.isEmpty())
        inner->addWidget(hintLabel(description));
    v->addWidget(card);
    m_body->addWidget(outer);
    if (group)
        *group = outer;
    return addForm(inner);
}

QFormLayout* SpecSection::addForm(QVBoxLayout* into) {
    auto* form = new QFormLayout;
    form->setLabelAlignment(Qt::AlignRight | Qt::AlignTop);
    form->setFormAlignment(Qt::AlignLeft | Qt::AlignTop);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setHorizontalSpacing(14);
    form->setVerticalSpacing(10);
    into->addLayout(form);
    return form;
}

QWidget* SpecSection::fieldCell(QWidget* field, FieldMessage* message, const QString& hint) {
    auto* cell = new QWidget;
    auto* v = new QVBoxLayout(cell);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(3);
    v->addWidget(field);
    if (message)
        v->addWidget(message);
    if (!hint.isEmpty())
        v->addWidget(hintLabel(hint));
    return cell;
}

FieldMessage* SpecSection::addField(QFormLayout* form, const QString& label, QWidget* field,
                                    const QString& pattern, const QString& hint,
                                    QWidget* problemField) {
    FieldMessage* message =
        pattern.isNull() ? nullptr : addTarget(problemField ? problemField : field, pattern);
    QWidget* cell = fieldCell(field, message, hint);
    auto* l = new QLabel(label);
    // Align the label with the field's text, not with the message under it, and every form's
    // labels in one column.
    l->setMinimumHeight(field->sizeHint().height());
    l->setMinimumWidth(kLabelWidth);
    l->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (field->maximumWidth() == QWIDGETSIZE_MAX) {
        if (qobject_cast<QComboBox*>(field))
            field->setMaximumWidth(400);
        else if (qobject_cast<QAbstractSpinBox*>(field))
            field->setMaximumWidth(170);
    }
    l->setBuddy(field);
    form->addRow(l, cell);
    return message;
}

QWidget* SpecSection::withButton(QWidget* field, QWidget* button) {
    auto* row = new QWidget;
    auto* h = new QHBoxLayout(row);
    h->setContentsMargins(0, 0, 0, 0);
    h->setSpacing(6);
    h->addWidget(field, 1);
    h->addWidget(button);
    return row;
}

QWidget* SpecSection::withNote(QWidget* field, QWidget* note) {
    auto* row = new QWidget;
    auto* h = new QHBoxLayout(row);
    h->setContentsMargins(0, 0, 0, 0);
    h->setSpacing(10);
    if (field->maximumWidth() == QWIDGETSIZE_MAX)
        field->setMaximumWidth(170);
    h->addWidget(field);
    h->addWidget(note);
    h->addStretch(1);
    return row;
}

QFont SpecSection::codeFont() {
    QFont f(QStringLiteral("DejaVu Sans Mono"));
    f.setFamilies({QStringLiteral("DejaVu Sans Mono"), QStringLiteral("Liberation Mono"),
                   QStringLiteral("monospace")});
    f.setStyleHint(QFont::TypeWriter);
    return f;
}

FieldMessage* SpecSection::addTarget(QWidget* field, const QString& pattern,
                                     std::function<QString(const spec::SpecError&)> describe) {
    auto* message = new FieldMessage(field);
    m_targets.push_back(ErrorTarget{pattern, message, std::move(describe)});
    return message;
}

QTableView* SpecSection::tableView(const QString& objectName, QAbstractItemModel* model,
                                   const QString& emptyText) {
    auto* v = new HintedTable(emptyText);
    v->setObjectName(objectName);
    v->setModel(model);
    v->setSelectionBehavior(QAbstractItemView::SelectRows);
    v->setAlternatingRowColors(true);
    v->setWordWrap(false);
    v->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                       QAbstractItemView::AnyKeyPressed | QAbstractItemView::SelectedClicked);
    v->verticalHeader()->hide();
    v->verticalHeader()->setDefaultSectionSize(v->fontMetrics().height() + 12);
    v->horizontalHeader()->setHighlightSections(false);
    v->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    v->horizontalHeader()->setStretchLastSection(true);
    // Repaint the hint when rows come and go.
    auto repaint = [vp = v->viewport()] {
        vp->update();
    };
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        QObject::connect(model, signal, v->viewport(), repaint);
    QObject::connect(model, &QAbstractItemModel::modelReset, v->viewport(), repaint);
    return v;
}

void SpecSection::alsoShow(FieldMessage* message, const QString& pattern) {
    m_targets.push_back(ErrorTarget{pattern, message, {}});
}

QLabel* SpecSection::hintLabel(const QString& text) {
    auto* l = new QLabel(text);
    l->setWordWrap(true);
    l->setTextFormat(Qt::PlainText);
    l->setForegroundRole(QPalette::PlaceholderText);
    QFont f = l->font();
    f.setPointSizeF(f.pointSizeF() * 0.92);
    l->setFont(f);
    return l;
}

models::SpecField& SpecSection::bind(models::SpecField field) {
    m_fields.push_back(std::move(field));
    return m_fields.back();
}

void SpecSection::watch(QLineEdit* w) {
    connect(w, &QLineEdit::textChanged, this, &SpecSection::notifyChanged);
}
void SpecSection::watch(QSpinBox* w) {
    connect(w, &QSpinBox::valueChanged, this, &SpecSection::notifyChanged);
}
void SpecSection::watch(QDoubleSpinBox* w) {
    connect(w, &QDoubleSpinBox::valueChanged, this, &SpecSection::notifyChanged);
}
void SpecSection::watch(QComboBox* w) {
    connect(w, &QComboBox::currentIndexChanged, this, &SpecSection::notifyChanged);
}
void SpecSection::watch(QAbstractButton* w) {
    connect(w, &QAbstractButton::toggled, this, &SpecSection::notifyChanged);
}

} // namespace studio::widgets
