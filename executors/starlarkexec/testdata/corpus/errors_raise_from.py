class ConfigError(Exception):
    pass

def load_port(settings):
    try:
        return int(settings["port"])
    except (KeyError, ValueError) as exc:
        raise ConfigError("bad port setting") from exc

outcomes = []
for s in [{"port": "8080"}, {"port": "http"}, {}]:
    try:
        outcomes.append(load_port(s))
    except ConfigError as e:
        outcomes.append(f"{e} (cause: {type(e.__cause__).__name__})")
print(outcomes)
final_answer(outcomes)
