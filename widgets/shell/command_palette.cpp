#include "widgets/shell/command_palette.h"

#include <QApplication>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPainter>
#include <QStyledItemDelegate>
#include <QVBoxLayout>

namespace studio::widgets {

namespace {

// One row: the name with its matched characters in bold, the kind and detail in a quieter
// colour, the shortcut at the right.
class PaletteDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex&) const override {
        return {option.rect.width(), option.fontMetrics.height() + 10};
    }

    void paint(QPainter* p, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override {
        QStyleOptionViewItem o = option;
        initStyleOption(&o, index);
        const QString name = o.text;
        o.text.clear();
        QStyle* style = o.widget ? o.widget->style() : QApplication::style();
        style->drawControl(QStyle::CE_ItemViewItem, &o, p, o.widget);
        const bool selected = o.state & QStyle::State_Selected;
        const QPalette& pal = o.palette;
        const QColor text = pal.color(selected ? QPalette::HighlightedText : QPalette::Text);
        QColor quiet = selected ? text : pal.color(QPalette::PlaceholderText);
        QRect r = o.rect.adjusted(10, 0, -10, 0);
        p->save();
        // The shortcut, right-aligned.
        const QString shortcut = index.data(models::PaletteModel::ShortcutRole).toString();
        if (!shortcut.isEmpty()) {
            p->setPen(quiet);
            const int w = o.fontMetrics.horizontalAdvance(shortcut);
            p->drawText(QRect(r.right() - w, r.top(), w, r.height()), Qt::AlignVCenter, shortcut);
            r.setRight(r.right() - w - 16);
        }
        // The name, bold where the query matched.
        const QList<int> matched =
            index.data(models::PaletteModel::MatchedRole).value<QList<int>>();
        QFont bold = o.font;
        bold.setBold(true);
        int x = r.left();
        for (int i = 0; i < name.size() && x < r.right(); ++i) {
            const bool hit = matched.contains(i);
            p->setFont(hit ? bold : o.font);
            p->setPen(text);
            const QString ch = name.mid(i, 1);
            p->drawText(QRect(x, r.top(), r.right() - x, r.height()), Qt::AlignVCenter, ch);
            x += QFontMetrics(hit ? bold : o.font).horizontalAdvance(ch);
        }
        // What it is.
        p->setFont(o.font);
        p->setPen(quiet);
        const QString detail = index.data(models::PaletteModel::DetailRole).toString();
        const QString kind = index.data(models::PaletteModel::KindNameRole).toString();
        const QString what = detail.isEmpty() ? kind : kind + QStringLiteral(" · ") + detail;
        const QRect rest(x + 14, r.top(), std::max(0, r.right() - x - 14), r.height());
        p->drawText(rest, Qt::AlignVCenter,
                    o.fontMetrics.elidedText(what, Qt::ElideMiddle, rest.width()));
        p->restore();
    }
};

} // namespace

CommandPalette::CommandPalette(QWidget* window)
    : QFrame(window, Qt::Popup)
    , m_model(new models::PaletteModel(this)) {
    setObjectName(QStringLiteral("commandPalette"));
    setAccessibleName(tr("Command palette"));
    setFrameShape(QFrame::StyledPanel);
    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(6, 6, 6, 6);
    v->setSpacing(4);
    m_input = new QLineEdit(this);
    m_input->setObjectName(QStringLiteral("paletteInput"));
    m_input->setAccessibleName(tr("Search commands, jobs and notebooks"));
    m_input->setClearButtonEnabled(true);
    v->addWidget(m_input);
    m_list = new QListView(this);
    m_list->setObjectName(QStringLiteral("paletteList"));
    m_list->setAccessibleName(tr("Matches"));
    m_list->setModel(m_model);
    m_list->setItemDelegate(new PaletteDelegate(m_list));
    m_list->setUniformItemSizes(true);
    m_list->setFocusPolicy(Qt::NoFocus); // typing stays in the line; arrows move the list
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    v->addWidget(m_list, 1);
    m_count = new QLabel(this);
    m_count->setForegroundRole(QPalette::PlaceholderText);
    v->addWidget(m_count);
    m_input->installEventFilter(this);
    connect(m_input, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_model->setQuery(text);
        if (m_model->rowCount() > 0)
            m_list->setCurrentIndex(m_model->index(0, 0));
        updateCount();
    });
    connect(m_list, &QListView::clicked, this,
            [this](const QModelIndex& index) { activate(index.row()); });
}

void CommandPalette::popup(const models::PaletteMode& mode, const QString& placeholder) {
    m_input->setPlaceholderText(placeholder);
    m_input->blockSignals(true);
    m_input->clear();
    m_input->blockSignals(false);
    m_model->setMode(mode, {});
    if (m_model->rowCount() > 0)
        m_list->setCurrentIndex(m_model->index(0, 0));
    updateCount();
    place();
    show();
    raise();
    activateWindow();
    m_input->setFocus(Qt::PopupFocusReason);
}

void CommandPalette::place() {
    QWidget* w = parentWidget();
    const int width = std::clamp(w->width() * 6 / 10, 420, 760);
    const int height = std::clamp(w->height() * 6 / 10, 240, 520);
    const QPoint top = w->mapToGlobal(QPoint((w->width() - width) / 2, 48));
    setGeometry(QRect(top, QSize(width, height)));
}

void CommandPalette::updateCount() {
    const int shown = m_model->rowCount();
    if (shown == 0)
        m_count->setText(tr("No matches"));
    else if (shown >= models::PaletteModel::kLimit)
        m_count->setText(tr("The best %1 matches; type more to narrow").arg(shown));
    else
        m_count->setText(shown == 1 ? tr("1 match") : tr("%1 matches").arg(shown));
}

void CommandPalette::activate(int row) {
    const models::PaletteEntry* e = m_model->entryAt(row);
    if (!e)
        return;
    const models::PaletteEntry chosen = *e; // the model may be refilled by what it opens
    hide();
    Q_EMIT activated(chosen);
}

bool CommandPalette::eventFilter(QObject* watched, QEvent* event) {
    if (watched != m_input || event->type() != QEvent::KeyPress)
        return QFrame::eventFilter(watched, event);
    auto* key = static_cast<QKeyEvent*>(event);
    const int rows = m_model->rowCount();
    const int row = m_list->currentIndex().row();
    int to = -2;
    switch (key->key()) {
    case Qt::Key_Down:
        to = rows ? (row + 1) % rows : -1;
        break;
    case Qt::Key_Up:
        to = rows ? (row - 1 + rows) % rows : -1;
        break;
    case Qt::Key_PageDown:
        to = std::min(rows - 1, row + 10);
        break;
    case Qt::Key_PageUp:
        to = std::max(0, row - 10);
        break;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        activate(row);
        return true;
    case Qt::Key_Escape:
        hide();
        return true;
    default:
        return QFrame::eventFilter(watched, event);
    }
    if (to >= 0)
        m_list->setCurrentIndex(m_model->index(to, 0));
    return true;
}

} // namespace studio::widgets
