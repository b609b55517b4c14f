// One form field bound to a place in the spec document. A field that still shows what was loaded
// leaves the document alone, so Clone and edit writes back exactly what it read (a string "2"
// stays a string, an invalid value stays for the validator to name); a changed field writes its
// value, and a value equal to the default is not added where the document had none.
#pragma once

#include "models/launch/spec_document.h"

#include <functional>
#include <string>

namespace studio::models {

class SpecField {
public:
    using Read = std::function<SpecDocument()>;            // the form's value; null: absent
    using Show = std::function<void(const SpecDocument&)>; // shows a document value (null: absent)
    using Extract = std::function<SpecDocument(const SpecDocument& doc)>;
    using Apply = std::function<void(SpecDocument& doc, const SpecDocument& value)>;
    using Active = std::function<bool()>;

    // defaultValue null: the key is required, so a new value is always written.
    SpecField(std::string pointer, Read read, Show show, SpecDocument defaultValue = {});

    // Where the field reads its value from, when that is not just its pointer (aliases).
    SpecField& extract(Extract e);
    // How the field writes, when that is more than putting or erasing its pointer.
    SpecField& apply(Apply a);
    // A field that is not active writes nothing (a hidden strategy's parameters).
    SpecField& activeWhen(Active a);

    const std::string& pointer() const { return m_pointer; }
    void load(const SpecDocument& doc);
    void save(SpecDocument& doc) const;

private:
    SpecDocument extracted(const SpecDocument& doc) const;

    std::string m_pointer;
    Read m_read;
    Show m_show;
    SpecDocument m_default;
    Extract m_extract;
    Apply m_apply;
    Active m_active;
    SpecDocument m_loadedRaw;  // the document's value when loaded
    SpecDocument m_loadedRead; // what the form showed for it
};

} // namespace studio::models
