#pragma once
// Peak resident memory of this process, for the memory figures commands report.
namespace gplvm {
double peak_resident_bytes();
}
