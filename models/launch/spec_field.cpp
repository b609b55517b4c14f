#include "models/launch/spec_field.h"

namespace studio::models {

SpecField::SpecField(std::string pointer, Read read, Show show, SpecDocument defaultValue)
    : m_pointer(std::move(pointer))
    , m_read(std::move(read))
    , m_show(std::move(show))
    , m_default(std::move(defaultValue)) {
}

SpecField& SpecField::extract(Extract e) {
    m_extract = std::move(e);
    return *this;
}

SpecField& SpecField::apply(Apply a) {
    m_apply = std::move(a);
    return *this;
}

SpecField& SpecField::activeWhen(Active a) {
    m_active = std::move(a);
    return *this;
}

SpecDocument SpecField::extracted(const SpecDocument& doc) const {
    return m_extract ? m_extract(doc) : valueAt(doc, m_pointer);
}

void SpecField::load(const SpecDocument& doc) {
    m_loadedRaw = extracted(doc);
    m_show(m_loadedRaw);
    m_loadedRead = m_read();
}

void SpecField::save(SpecDocument& doc) const {
    if (m_active && !m_active())
        return;
    const SpecDocument value = m_read();
    const bool untouched = value == m_loadedRead && extracted(doc) == m_loadedRaw;
    const bool requiredAndMissing =
        m_loadedRaw.is_null() && m_default.is_null() && !value.is_null();
    if (untouched && !requiredAndMissing)
        return;
    if (m_apply) {
        m_apply(doc, value);
        return;
    }
    if (value.is_null()) {
        eraseAt(doc, m_pointer);
        return;
    }
    if (value == m_default && !findAt(doc, m_pointer))
        return;
    putAt(doc, m_pointer, value);
}

} // namespace studio::models
