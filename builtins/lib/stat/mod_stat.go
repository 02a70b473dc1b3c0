package stat

import (
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/vm/starlark"
)

func members() starlark.StringDict {
	consts := map[string]int{
		"S_IFMT": 0o170000, "S_IFSOCK": 0o140000, "S_IFLNK": 0o120000, "S_IFREG": 0o100000, "S_IFBLK": 0o060000,
		"S_IFDIR": 0o040000, "S_IFCHR": 0o020000, "S_IFIFO": 0o010000, "S_ISUID": 0o4000, "S_ISGID": 0o2000,
		"S_ISVTX": 0o1000, "S_IRWXU": 0o700, "S_IRUSR": 0o400, "S_IWUSR": 0o200, "S_IXUSR": 0o100,
		"S_IRWXG": 0o70, "S_IRGRP": 0o40, "S_IWGRP": 0o20, "S_IXGRP": 0o10, "S_IRWXO": 0o7, "S_IROTH": 0o4,
		"S_IWOTH": 0o2, "S_IXOTH": 0o1, "ST_MODE": 0, "ST_INO": 1, "ST_DEV": 2, "ST_NLINK": 3, "ST_UID": 4,
		"ST_GID": 5, "ST_SIZE": 6, "ST_ATIME": 7, "ST_MTIME": 8, "ST_CTIME": 9,
	}
	m := starlark.StringDict{}
	for k, v := range consts {
		m[k] = starlark.MakeInt(v)
	}
	is := func(name string, bits int) {
		m[name] = core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var mode int
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &mode); err != nil {
				return nil, err
			}
			return starlark.Bool(mode&0o170000 == bits), nil
		})
	}
	is("S_ISDIR", 0o040000)
	is("S_ISREG", 0o100000)
	is("S_ISLNK", 0o120000)
	is("S_ISCHR", 0o020000)
	is("S_ISBLK", 0o060000)
	is("S_ISFIFO", 0o010000)
	is("S_ISSOCK", 0o140000)
	m["S_IMODE"] = core.Fn("S_IMODE", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var mode int
		if err := starlark.UnpackPositionalArgs("S_IMODE", args, kwargs, 1, &mode); err != nil {
			return nil, err
		}
		return starlark.MakeInt(mode & 0o7777), nil
	})
	m["filemode"] = core.Fn("filemode", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var mode int
		if err := starlark.UnpackPositionalArgs("filemode", args, kwargs, 1, &mode); err != nil {
			return nil, err
		}
		kinds := map[int]byte{0o140000: 's', 0o120000: 'l', 0o100000: '-', 0o060000: 'b', 0o040000: 'd', 0o020000: 'c', 0o010000: 'p'}
		k, ok := kinds[mode&0o170000]
		if !ok {
			k = '?'
		}
		out := []byte{k}
		for i, c := range "rwxrwxrwx" {
			if mode&(1<<(8-i)) != 0 {
				out = append(out, byte(c))
			} else {
				out = append(out, '-')
			}
		}
		return starlark.String(out), nil
	})
	return m
}

// Module returns a new stat module.
func Module() *core.PyModule { return core.NewModule("stat", members()) }
