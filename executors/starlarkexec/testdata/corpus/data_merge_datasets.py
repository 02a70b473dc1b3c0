employees = [(1, "Ana"), (2, "Bo"), (3, "Cy"), (4, "Di")]
salaries = {1: 72000, 2: 65000, 4: 91000}
departments = {1: "eng", 2: "sales", 3: "eng", 4: "ops"}
merged = []
for emp_id, name in employees:
    merged.append({
        "id": emp_id,
        "name": name,
        "dept": departments.get(emp_id, "unknown"),
        "salary": salaries.get(emp_id),
    })
missing = [m["name"] for m in merged if m["salary"] is None]
print("Missing salary data for:", missing)
by_dept = {}
for m in merged:
    if m["salary"] is not None:
        by_dept.setdefault(m["dept"], []).append(m["salary"])
avg = {d: sum(s) / len(s) for d, s in by_dept.items()}
print(avg)
final_answer(avg)
