"""What the benchmarks report about the machine they run on."""
import platform


def _cpuinfo_field(name):
    """The value of the first `name` line of /proc/cpuinfo, or None."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(name):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def cpu_model():
    return _cpuinfo_field("model name") or platform.processor() or "unknown"


def cpu_flags():
    return set((_cpuinfo_field("flags") or "").split())
