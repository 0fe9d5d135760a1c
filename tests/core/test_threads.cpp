// Threads within a rank: for_each_thread_share covers [0, n) exactly once in whole units on
// distinct threads, nests without new threads, carries exceptions back; the thread count comes
// from OMP_NUM_THREADS (or 1) and bad values are input errors naming it.
#include "gplvm/core/threads.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "gplvm/core/error.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

// Restores the thread count (testing::ScopedThreads) and OMP_NUM_THREADS a test changed.
class ThreadCountGuard {
 public:
  ThreadCountGuard() {
    const char* v = std::getenv("OMP_NUM_THREADS");
    had_env_ = v != nullptr;
    if (had_env_) env_ = v;
  }
  ~ThreadCountGuard() {
    if (had_env_)
      setenv("OMP_NUM_THREADS", env_.c_str(), 1);
    else
      unsetenv("OMP_NUM_THREADS");
  }

 private:
  testing::ScopedThreads threads_{threads_per_rank()};
  bool had_env_ = false;
  std::string env_;
};

struct Share {
  Index begin, end;
  std::thread::id thread;
};

std::vector<Share> shares_of(Index n, Index unit) {
  std::vector<Share> shares;
  std::mutex mutex;
  for_each_thread_share(n, unit, [&](Index b, Index e) {
    const std::lock_guard<std::mutex> lock(mutex);
    shares.push_back({b, e, std::this_thread::get_id()});
  });
  return shares;
}

TEST(Threads, SharesCoverTheRangeOnceInWholeUnitsOnDistinctThreads) {
  const ThreadCountGuard guard;
  for (int threads : {1, 2, 3, 4, 7}) {
    set_threads_per_rank(threads);
    for (Index unit : {1, 12, 16}) {
      for (Index n : {0, 1, 11, 12, 23, 24, 25, 100, 512, 513, 1000}) {
        const std::vector<Share> shares = shares_of(n, unit);
        std::vector<int> hits(static_cast<std::size_t>(n), 0);
        std::set<std::thread::id> threads_seen;
        for (const Share& s : shares) {
          ASSERT_LT(s.begin, s.end);
          for (Index i = s.begin; i < s.end; ++i) ++hits[static_cast<std::size_t>(i)];
          threads_seen.insert(s.thread);
          // Interior boundaries fall on whole units; only the share ending at n may be ragged.
          EXPECT_EQ(s.begin % unit, 0) << "n=" << n << " unit=" << unit;
          if (s.end != n) {
            EXPECT_EQ(s.end % unit, 0) << "n=" << n << " unit=" << unit;
          }
          EXPECT_GE(s.end - s.begin, std::min(n, unit));
        }
        for (Index i = 0; i < n; ++i)
          EXPECT_EQ(hits[static_cast<std::size_t>(i)], 1) << "n=" << n << " i=" << i;
        // As many shares as threads allow, never more than the whole units; each on its own thread.
        const Index expected = n == 0 ? 0 : std::max<Index>(1, std::min<Index>(threads, n / unit));
        EXPECT_EQ(static_cast<Index>(shares.size()), expected) << "n=" << n << " unit=" << unit;
        EXPECT_EQ(threads_seen.size(), shares.size());
      }
    }
  }
}

TEST(Threads, NestedSplitsRunOnTheCallingThread) {
  const ThreadCountGuard guard;
  set_threads_per_rank(3);
  std::atomic<int> outer{0}, nested_shares{0}, nested_on_other_thread{0};
  for_each_thread_share(300, 10, [&](Index, Index) {
    ++outer;
    EXPECT_TRUE(inside_parallel_region());
    const std::thread::id me = std::this_thread::get_id();
    for_each_thread_share(300, 10, [&](Index b, Index e) {
      ++nested_shares;
      EXPECT_EQ(b, 0);
      EXPECT_EQ(e, 300);
      if (std::this_thread::get_id() != me) ++nested_on_other_thread;
    });
  });
  EXPECT_EQ(outer.load(), 3);
  EXPECT_EQ(nested_shares.load(), 3);
  EXPECT_EQ(nested_on_other_thread.load(), 0);
  EXPECT_FALSE(inside_parallel_region());
}

TEST(Threads, AnExceptionOnAWorkerThreadReachesTheCaller) {
  const ThreadCountGuard guard;
  set_threads_per_rank(2);
  std::atomic<int> finished{0};
  EXPECT_THROW(for_each_thread_share(100, 10,
                                     [&](Index begin, Index) {
                                       if (begin > 0) throw std::runtime_error("share failed");
                                       ++finished;
                                     }),
               std::runtime_error);
  EXPECT_EQ(finished.load(), 1);  // the other share still ran to its end
}

TEST(Threads, CountComesFromOmpNumThreadsOrIsOne) {
  const ThreadCountGuard guard;
  unsetenv("OMP_NUM_THREADS");
  EXPECT_EQ(threads_from_environment(), 1);
  EXPECT_EQ(threads_per_rank(), 1);
  setenv("OMP_NUM_THREADS", "3", 1);
  EXPECT_EQ(threads_from_environment(), 3);
  EXPECT_EQ(threads_per_rank(), 3);
  setenv("OMP_NUM_THREADS", "2,1", 1);  // per nesting level: the first is the rank's
  EXPECT_EQ(threads_from_environment(), 2);
}

TEST(Threads, BadOmpNumThreadsIsAnInputErrorNamingIt) {
  const ThreadCountGuard guard;
  for (const char* bad : {"zero", "0", "-2", "2x", "1.5", "100000"}) {
    setenv("OMP_NUM_THREADS", bad, 1);
    try {
      threads_from_environment();
      ADD_FAILURE() << "accepted OMP_NUM_THREADS=" << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(e.context().key, "OMP_NUM_THREADS") << bad;
    }
  }
  EXPECT_THROW(set_threads_per_rank(0), InputError);
}

TEST(Threads, WarningWhenThreadsExceedTheRanksCores) {
  const ThreadCountGuard guard;
  set_threads_per_rank(1);
  EXPECT_EQ(thread_warning(), "");
  EXPECT_NE(thread_note().find("threads per rank: 1"), std::string::npos) << thread_note();
  const int too_many = cores_available() + 1;
  set_threads_per_rank(too_many);
  const std::string warning = thread_warning();
  EXPECT_NE(warning.find("share cores"), std::string::npos) << warning;
  EXPECT_NE(warning.find("--cpus-per-task=" + std::to_string(too_many)), std::string::npos) << warning;
  EXPECT_GE(cores_available(), 1);
}

}  // namespace
}  // namespace gplvm
