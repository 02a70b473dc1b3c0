name = "disk"
used, total = 73.456, 120
print("%s usage: %.1f/%d GB (%d%%)" % (name, used, total, used / total * 100))
print("%-10s|%5s|" % ("left", "right"))
print("%05d %x %o %e" % (42, 255, 8, 12345.678))
print("%(host)s:%(port)d" % {"host": "localhost", "port": 8080})
print("%r and %s" % ("quoted", "plain"))
final_answer("%.3f" % (used / total))
