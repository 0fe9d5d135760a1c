#include "gplvm/io/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "gplvm/core/error.hpp"

namespace gplvm {

std::string output_lock_path(const std::string& output) {
  return output + ".lock";
}

namespace {

// Whether the open file is still the one the name refers to (a releasing writer unlinks the name
// after another process opened it: the lock on that orphan would guard nothing).
bool still_named(int fd, const std::string& path) {
  struct stat opened {
  }, named{};
  return ::fstat(fd, &opened) == 0 && ::stat(path.c_str(), &named) == 0 && opened.st_dev == named.st_dev &&
         opened.st_ino == named.st_ino;
}

}  // namespace

OutputLock OutputLock::acquire(const std::string& output, const std::string& key) {
  OutputLock lock;
  lock.path_ = output_lock_path(output);
  for (int attempt = 0; attempt < 5; ++attempt) {
    lock.fd_ = ::open(lock.path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock.fd_ < 0)
      throw Error("cannot create the output's lock file: " + std::string(std::strerror(errno)),
                  {lock.path_, key, output});
    if (::flock(lock.fd_, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      ::close(lock.fd_);  // not ours to remove: another writer holds it
      lock.fd_ = -1;
      if (error == EWOULDBLOCK)
        throw InputError("another process is writing this output (it holds " + lock.path_ +
                             "); wait for it, or choose another output",
                         {output, key, ""});
      throw Error("cannot lock the output: " + std::string(std::strerror(error)), {lock.path_, key, output});
    }
    if (still_named(lock.fd_, lock.path_)) return lock;
    ::close(lock.fd_);  // a released writer's orphan: open the name again
    lock.fd_ = -1;
  }
  throw Error("cannot lock the output: its lock file keeps being replaced", {lock.path_, key, output});
}

OutputLock::~OutputLock() {
  release();
}

OutputLock::OutputLock(OutputLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

OutputLock& OutputLock::operator=(OutputLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

void OutputLock::release() noexcept {
  if (fd_ < 0) return;
  // Removed while still locked: a writer that opens the name afterwards creates a new file.
  ::unlink(path_.c_str());
  ::close(fd_);
  fd_ = -1;
}

}  // namespace gplvm
