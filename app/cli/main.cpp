// Entry point of `neardup`. Placeholder until the subcommands are wired.
#include <cstdio>

int main() {
    std::puts("neardup " NEARDUP_VERSION);
    return 0;
}
