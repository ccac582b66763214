"""The ground floor: spec strings, atomic files, child processes, machine facts."""
