import copy

board = [[0] * 3 for _ in range(3)]
snapshot = copy.deepcopy(board)
alias = board
shallow = copy.copy(board)
board[1][1] = 5
print(board, snapshot, alias is board, shallow[1][1])
config = {"layers": [{"units": 64}, {"units": 10}], "name": "mlp"}
variant = copy.deepcopy(config)
variant["layers"][0]["units"] = 128
variant["name"] = "wide"
print(config)
print(variant)
final_answer(snapshot == [[0] * 3] * 3)
