// The atomic writer (sequence/atomic_write.h) and every writer built on it (text, EXR, PNG): a
// symbolic link planted where a temporary file could go never redirects a write, temporary names
// cannot be predicted, a target that is a link is replaced rather than followed, two writers of
// one target do not clash, and a writer that fails leaves neither a temporary file nor a changed
// target.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sequence/atomic_write.h"
#include "sequence/sequence.h"
#include "test_dir.h"
#include "text_file.h"

namespace fs = std::filesystem;
using namespace swinup;

namespace {

using swinup::test::read_text;
using swinup::test::write_text;

// The names in `dir`, sorted.
std::set<std::string> names_in(const fs::path& dir) {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename().string());
    return names;
}

// One writer of the library: writes `path` and checks that the file holds what it wrote.
struct Writer {
    const char* name;
    std::function<void(const std::string& path)> write;
    std::function<void(const std::string& path)> expect_written;
};

std::vector<Writer> writers() {
    const Image image(3, 2, 4, 0.25f);
    return {
        {"text", [](const std::string& path) { write_text_file_atomically(path, "new content\n"); },
         [](const std::string& path) { EXPECT_EQ(read_text(path), "new content\n"); }},
        {"exr", [image](const std::string& path) { exr_write(path, image, true); },
         [image](const std::string& path) {
             const Image back = exr_read(path);
             EXPECT_EQ(back.data, image.data);
         }},
        {"png", [image](const std::string& path) { png_write(path, image, true); },
         [](const std::string& path) { EXPECT_EQ(read_text(path).substr(1, 3), "PNG"); }},
    };
}

class AtomicWrite : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = swinup::test::fresh_test_dir("atomic");
        fs::create_directories(root_ / "out");
        fs::create_directories(root_ / "elsewhere");
    }
    void TearDown() override { fs::remove_all(root_); }

    fs::path out() const { return root_ / "out"; }
    // A file outside the output folder that a planted link points to.
    fs::path victim(const std::string& name) const {
        const fs::path path = root_ / "elsewhere" / name;
        write_text(path, "the user's file " + name);
        return path;
    }

    fs::path root_;
};

// The names a temporary file of `target` used to have, or could have if it were derived from
// the target and the process: the old fixed "<target>.tmp", and the process id variants.
std::vector<std::string> predictable_names(const fs::path& target) {
    const std::string t = target.string(), pid = std::to_string(::getpid());
    return {t + ".tmp", t + ".tmp." + pid, t + "." + pid + ".tmp", t + "~", t + ".new"};
}

TEST_F(AtomicWrite, LinksPlantedAtPredictableNamesDoNotRedirectAnyWriter) {
    for (const Writer& writer : writers()) {
        const fs::path target = out() / (std::string("picture.") + writer.name);
        std::vector<std::pair<fs::path, fs::path>> links;  // link, the file it points to
        int n = 0;
        for (const std::string& name : predictable_names(target)) {
            const fs::path pointed = victim(std::string(writer.name) + "_" + std::to_string(n++));
            fs::create_symlink(pointed, name);
            links.emplace_back(name, pointed);
        }
        fs::create_symlink(root_ / "elsewhere" / "not_yet_there", target.string() + ".tmp.dangling");
        writer.write(target.string());
        writer.expect_written(target.string());
        EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(target))) << writer.name;
        for (const auto& [link, pointed] : links) {
            EXPECT_EQ(read_text(pointed), "the user's file " + pointed.filename().string())
                << writer.name << ": written through " << link;
            EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link))) << link;  // not ours: left alone
        }
        EXPECT_FALSE(fs::exists(root_ / "elsewhere" / "not_yet_there")) << writer.name;
    }
}

// The temporary file's name is new each time (a third party cannot predict the next one from
// the last), lies beside the target, and a link planted at a name seen before is not followed.
TEST_F(AtomicWrite, TemporaryNamesAreNewEachTime) {
    const fs::path target = out() / "record.json";
    std::set<std::string> seen;
    for (int i = 0; i < 20; ++i) {
        const std::set<std::string> before = names_in(out());
        std::string temporary;
        write_file_atomically(target.string(), [&](int fd) {
            for (const std::string& name : names_in(out()))
                if (!before.count(name)) temporary = name;
            write_all(fd, "x", 1, target.string());
        });
        ASSERT_FALSE(temporary.empty());
        EXPECT_EQ(temporary.rfind("record.json.", 0), 0u) << temporary;
        EXPECT_NE(temporary, "record.json.tmp");
        EXPECT_TRUE(seen.insert(temporary).second) << temporary << " was used before";
        // Plant a link at the name just used: the next write must neither follow nor reuse it.
        const fs::path pointed = victim("seen_" + std::to_string(i));
        fs::create_symlink(pointed, out() / temporary);
        EXPECT_EQ(read_text(target), "x");
        EXPECT_EQ(read_text(pointed), "the user's file seen_" + std::to_string(i));
    }
}

// rename replaces the name: when the target is a symbolic link, the link becomes the new file
// and the file it pointed to stays as it was.
TEST_F(AtomicWrite, TargetThatIsALinkIsReplacedNotFollowed) {
    for (const Writer& writer : writers()) {
        const fs::path pointed = victim(std::string("target_") + writer.name);
        const fs::path target = out() / (std::string("linked.") + writer.name);
        fs::create_symlink(pointed, target);
        writer.write(target.string());
        EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(target))) << writer.name;
        writer.expect_written(target.string());
        EXPECT_EQ(read_text(pointed), "the user's file target_" + std::string(writer.name));
    }
}

TEST_F(AtomicWrite, NewFilesHonourTheUmask) {
    const mode_t saved = ::umask(027);
    write_text_file_atomically((out() / "a.json").string(), "{}");
    ::umask(077);
    write_text_file_atomically((out() / "b.json").string(), "{}");
    ::umask(saved);
    struct stat a{}, b{};
    ASSERT_EQ(::stat((out() / "a.json").c_str(), &a), 0);
    ASSERT_EQ(::stat((out() / "b.json").c_str(), &b), 0);
    EXPECT_EQ(a.st_mode & 0777, 0640u);
    EXPECT_EQ(b.st_mode & 0777, 0600u);
}

// Two threads write one target over and over, while a third reads it: every write succeeds,
// every read sees one writer's complete content, and no temporary file is left.
TEST_F(AtomicWrite, TwoWritersOfOneTargetDoNotClash) {
    const fs::path target = out() / "shared.json";
    const std::string a(200000, 'a'), b(300000, 'b');
    write_text_file_atomically(target.string(), a);
    std::atomic<int> failures{0}, torn{0};
    std::atomic<bool> done{false};
    auto hammer = [&](const std::string& text) {
        for (int i = 0; i < 100; ++i) {
            try {
                write_text_file_atomically(target.string(), text);
            } catch (const std::exception&) {
                ++failures;
            }
        }
    };
    std::thread reader([&] {
        while (!done) {
            const std::string seen = read_text(target);
            if (seen != a && seen != b) ++torn;
        }
    });
    std::thread first(hammer, a), second(hammer, b);
    first.join();
    second.join();
    done = true;
    reader.join();
    EXPECT_EQ(failures, 0);
    EXPECT_EQ(torn, 0);
    const std::string last = read_text(target);
    EXPECT_TRUE(last == a || last == b);
    EXPECT_EQ(names_in(out()), std::set<std::string>{"shared.json"});
}

// A write that the system stops part-way (here: the file size limit) throws, removes its
// temporary file and leaves the earlier content of the target as it was.
TEST_F(AtomicWrite, FailingWriterLeavesNoTemporaryAndAnUnchangedTarget) {
    const fs::path target = out() / "big.json";
    write_text_file_atomically(target.string(), "old");
    struct rlimit saved{};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
    const auto previous_handler = ::signal(SIGXFSZ, SIG_IGN);  // EFBIG instead of the signal
    struct rlimit limit = saved;
    limit.rlim_cur = 4096;
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limit), 0);
    bool threw = false;
    try {
        write_text_file_atomically(target.string(), std::string(100000, 'n'));
    } catch (const SequenceError& e) {
        threw = true;
        EXPECT_NE(std::string(e.what()).find("big.json"), std::string::npos) << e.what();
    }
    ::setrlimit(RLIMIT_FSIZE, &saved);
    ::signal(SIGXFSZ, previous_handler);
    EXPECT_TRUE(threw);
    EXPECT_EQ(read_text(target), "old");
    EXPECT_EQ(names_in(out()), std::set<std::string>{"big.json"});
}

TEST_F(AtomicWrite, WriterThatThrowsLeavesNoTemporaryAndAnUnchangedTarget) {
    const fs::path target = out() / "frame.exr";
    write_text(target, "old");
    EXPECT_THROW(write_file_atomically(target.string(), [&](int fd) {
                     write_all(fd, "partial", 7, target.string());
                     throw std::runtime_error("the encoder gave up");
                 }),
                 SequenceError);
    EXPECT_EQ(read_text(target), "old");
    EXPECT_EQ(names_in(out()), std::set<std::string>{"frame.exr"});
}

TEST_F(AtomicWrite, CheckWritableLeavesNothingAndNamesTheProblem) {
    check_writable((out() / "scores.json").string());
    EXPECT_TRUE(fs::is_empty(out()));
    try {
        check_writable((out() / "missing" / "scores.json").string());
        FAIL() << "no SequenceError";
    } catch (const SequenceError& e) {
        EXPECT_NE(std::string(e.what()).find("missing/scores.json"), std::string::npos) << e.what();
    }
}

}  // namespace
