#include "app/notebook/kernel_messages.h"

#include "models/notebook/nbformat_json.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QStringList>

#include <csignal>
#include <cstdlib>
#include <cstring>

namespace studio::notebook {

QJsonObject objectOf(const jupyter::Json& json) {
    if (!json.is_object())
        return {};
    const std::string text = json.dump(-1, ' ', false, jupyter::Json::error_handler_t::replace);
    return QJsonDocument::fromJson(QByteArray::fromStdString(text)).object();
}

jupyter::Json jsonOf(const QJsonObject& object) {
    return models::fromQtJson(object);
}

QString displayIdOf(const jupyter::Message& message) {
    const auto transient = message.content.find("transient");
    if (transient == message.content.end() || !transient->is_object())
        return {};
    const auto id = transient->find("display_id");
    return id != transient->end() && id->is_string()
               ? QString::fromStdString(id->get<std::string>())
               : QString();
}

QJsonObject outputOf(const jupyter::Message& message) {
    const std::string type = message.msgType();
    const QJsonObject c = objectOf(message.content);
    if (type == "stream")
        return {{QStringLiteral("output_type"), QStringLiteral("stream")},
                {QStringLiteral("name"), c.value(QStringLiteral("name"))},
                {QStringLiteral("text"), c.value(QStringLiteral("text"))}};
    if (type == "error")
        return {{QStringLiteral("output_type"), QStringLiteral("error")},
                {QStringLiteral("ename"), c.value(QStringLiteral("ename"))},
                {QStringLiteral("evalue"), c.value(QStringLiteral("evalue"))},
                {QStringLiteral("traceback"), c.value(QStringLiteral("traceback"))}};
    QJsonObject out{{QStringLiteral("output_type"), type == "execute_result"
                                                        ? QStringLiteral("execute_result")
                                                        : QStringLiteral("display_data")},
                    {QStringLiteral("data"), c.value(QStringLiteral("data")).toObject()},
                    {QStringLiteral("metadata"), c.value(QStringLiteral("metadata")).toObject()}};
    if (type == "execute_result")
        out.insert(QStringLiteral("execution_count"), c.value(QStringLiteral("execution_count")));
    return out;
}

QJsonObject languageInfoOf(const jupyter::Json& kernelInfo) {
    const QJsonObject info = objectOf(kernelInfo);
    return info.value(QStringLiteral("language_info")).toObject();
}

int codePointOffset(const QString& code, int pos) {
    pos = std::clamp(pos, 0, static_cast<int>(code.size()));
    int points = 0;
    for (int i = 0; i < pos; ++i) {
        if (code.at(i).isHighSurrogate() && i + 1 < code.size() && code.at(i + 1).isLowSurrogate())
            ++i;
        ++points;
    }
    return points;
}

int utf16Offset(const QString& code, int codePoints) {
    int i = 0;
    for (int k = 0; k < codePoints && i < code.size(); ++k) {
        if (code.at(i).isHighSurrogate() && i + 1 < code.size() && code.at(i + 1).isLowSurrogate())
            ++i;
        ++i;
    }
    return i;
}

QString deathMessage(int exitStatus, const QString& stderrTail) {
    QString how;
    if (exitStatus < 0) {
        const int sig = -exitStatus;
        const char* abbrev = sigabbrev_np(sig);
        how = QStringLiteral("killed by signal %1%2")
                  .arg(sig)
                  .arg(abbrev ? QStringLiteral(", SIG") + QString::fromLatin1(abbrev) : QString());
    } else {
        how = QStringLiteral("exit status %1").arg(exitStatus);
    }
    QString message = QStringLiteral("The kernel died (%1).").arg(how);
    const QString tail = stderrTail.trimmed();
    if (!tail.isEmpty())
        message += QStringLiteral(" Its last words on stderr:\n") + tail;
    return message;
}

QJsonObject deadKernelOutput(const QString& message) {
    // Frontends show an error's traceback only: it starts with the error's name, as Python's.
    QJsonArray traceback{QStringLiteral("DeadKernelError: Kernel died")};
    for (const QString& line : message.split(QLatin1Char('\n')))
        traceback.append(line);
    return {{QStringLiteral("output_type"), QStringLiteral("error")},
            {QStringLiteral("ename"), QStringLiteral("DeadKernelError")},
            {QStringLiteral("evalue"), QStringLiteral("Kernel died")},
            {QStringLiteral("traceback"), traceback}};
}

QString chdirCode(const QString& dir) {
    // A Python string literal of \UXXXXXXXX escapes but for plain path characters: the path
    // cannot break out of it.
    QString literal;
    for (const char32_t c : dir.toUcs4()) {
        const bool plain = (c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z') ||
                           (c >= U'0' && c <= U'9') || c == U'/' || c == U'.' || c == U'-' ||
                           c == U'_';
        literal += plain
                       ? QString(QChar(static_cast<char16_t>(c)))
                       : QStringLiteral("\\U%1").arg(static_cast<uint>(c), 8, 16, QLatin1Char('0'));
    }
    return QStringLiteral("__import__('os').chdir('%1')").arg(literal);
}

jupyter::KernelSpec resolveInterpreter(jupyter::KernelSpec spec) {
    if (spec.argv.empty())
        return spec;
    static const QRegularExpression bare(QStringLiteral("^python(3(\\.\\d+)?)?$"));
    if (!bare.match(QString::fromStdString(spec.argv.front())).hasMatch())
        return spec;
    if (const char* chosen = std::getenv("MLSTUDIO_PYTHON"); chosen && *chosen)
        spec.argv.front() = chosen;
    else if (QFileInfo(QStringLiteral("/usr/bin/python3")).isExecutable())
        spec.argv.front() = "/usr/bin/python3";
    return spec;
}

} // namespace studio::notebook
