import sys

import savekit

folder = sys.argv[1] if len(sys.argv) > 1 else "saves"
with savekit.Prefs(f"{folder}/settings.prefs") as prefs:  # saved, durably, on a clean exit
    prefs["volume"] = 0.8
    prefs["name"] = "Ada\0Lovelace"  # byte-clean: the NUL is kept
with savekit.Slots(folder) as slots:
    slots.write("slot1", b'{"level": 12}', encoding="json", title="Chapter 2", playtime=11520)
    for slot in slots.list():  # the load menu, newest first
        print(f"{slot.name}: {slot.title}, {slot.playtime}s played, {slots.read(slot.name).decode()}")
with savekit.Prefs(f"{folder}/settings.prefs") as prefs:
    print(repr(prefs["name"]), prefs.get_float("volume"))
