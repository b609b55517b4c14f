// How the leaderboard's columns are laid out: which show, how wide, in what order. The user's
// choices are kept by column title, so they survive reloads that add or drop columns; columns the
// user never touched get a leaderboard's defaults (job, scores, parameters, the rest; Experiment,
// Trial and the rarer metric statistics hidden; widths from the header and the first rows).
#pragma once

#include <QHash>
#include <QObject>
#include <QStringList>

class QHeaderView;

namespace studio::models {
class LeaderboardModel;
} // namespace studio::models

namespace studio::widgets {

class LeaderboardColumns : public QObject {
    Q_OBJECT
public:
    // header shows model; both outlive this object (it is a child of the header's owner).
    LeaderboardColumns(QHeaderView* header, const models::LeaderboardModel* model, QObject* parent);

    // Applies choices and defaults to the header after the model's columns changed.
    void apply();
    // Widths from contents, except the ones the user dragged (forget them first when asked).
    void fit(bool forgetUserWidths = false);
    // Takes the header's current shown/hidden state as the user's choice.
    void rememberVisibility();

    void setVisible(const QString& title, bool visible);
    bool isVisible(const QString& title) const;
    // Logical column indices in header order, hidden ones left out.
    QList<int> shownInOrder() const;

private:
    QString titleOf(int section) const;
    bool hiddenByDefault(int section) const;
    QStringList defaultOrder() const;

    QHeaderView* m_header;
    const models::LeaderboardModel* m_model;
    bool m_applying = false;
    QHash<QString, bool> m_shown; // the user's choices
    QHash<QString, int> m_widths; // widths the user dragged
    QStringList m_order;          // the order the user dragged columns into
};

} // namespace studio::widgets
