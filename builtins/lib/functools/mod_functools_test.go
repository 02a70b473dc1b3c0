package functools_test

import (
	"testing"

	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
)

func TestLruCache(t *testing.T) { builtinstest.RunCases(t, lruCases) }

// lruCases check lru_cache's keys (a lone int is its own key, so f(1)
// and f(1.0) are cached apart), its eviction of the least recently used
// entry, and cache_info()'s CacheInfo.
var lruCases = []builtinstest.Case{
	{Name: "lru", Src: `from functools import lru_cache, cache
@lru_cache(maxsize=3)
def sq(x):
    return x * x
for v in [1, 2, 3, 1, 4, 2, 5, 1, 3, 3, 2.0, 2, 1]:
    sq(v)
print(sq.cache_info(), sq.cache_parameters())
@lru_cache(maxsize=2, typed=True)
def f(a, b=0):
    return (a, b)
print(f(1), f(1.0), f(1, b=2), f(1, 2), f(a=1, b=2), f.cache_info())
@lru_cache
def g(n):
    return n if n < 2 else g(n - 1) + g(n - 2)
print(g(30), g.cache_info())
g.cache_clear()
print(g.cache_info(), type(g.cache_info()).__name__, g.cache_info().maxsize)
@cache
def h(x):
    return [x]
print(h(1) is h(1), h.cache_info())
try:
    h([1])
except TypeError as e:
    print("TypeError", e)
@lru_cache(0)
def z(x):
    return x
z(1); z(1)
print(z.cache_info())
`, Want: "CacheInfo(hits=2, misses=11, maxsize=3, currsize=3) {'maxsize': 3, 'typed': False}\n(1, 0) (1.0, 0) (1, 2) (1, 2) (1, 2) CacheInfo(hits=0, misses=5, maxsize=2, currsize=2)\n832040 CacheInfo(hits=28, misses=31, maxsize=128, currsize=31)\nCacheInfo(hits=0, misses=0, maxsize=128, currsize=0) CacheInfo 128\nTrue CacheInfo(hits=1, misses=1, maxsize=None, currsize=1)\nTypeError unhashable type: 'list'\nCacheInfo(hits=0, misses=2, maxsize=0, currsize=0)\n"},
}
