#pragma once
// One writer per output: a command that writes a file holds an advisory lock (flock) on
// "<output>.lock" from the time it checks the output until the file is in place, so that a second
// command writing the same output while the first runs is refused, naming it, instead of silently
// replacing the first one's result at the end. The lock file is removed when the lock is released;
// one left by a killed writer holds no lock (the kernel drops flock locks with their process) and
// is taken over, and removed, by the next writer.
#include <string>

namespace gplvm {

class OutputLock {
 public:
  OutputLock() = default;  // holds nothing
  // Not collective (call it on one rank). InputError naming `key` and the output when another
  // process holds the output's lock; Error when the lock file cannot be created.
  static OutputLock acquire(const std::string& output, const std::string& key);
  ~OutputLock();
  OutputLock(OutputLock&& other) noexcept;
  OutputLock& operator=(OutputLock&& other) noexcept;
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  bool held() const noexcept { return fd_ >= 0; }
  // Removes the lock file and releases the lock (also done by the destructor).
  void release() noexcept;

 private:
  int fd_ = -1;
  std::string path_;
};

// "<output>.lock", the file an OutputLock of `output` holds.
std::string output_lock_path(const std::string& output);

}  // namespace gplvm
