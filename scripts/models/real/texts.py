"""The texts every trained model is checked on: Korean and English, short and past each model's limit."""

_KO = ("대한민국의 수도는 서울이며, 한강이 도시를 가로질러 흐른다. 조선 시대에는 한양이라 불렸고 "
       "오늘날에는 천만 명 가까운 사람이 살고 있다. ")
_EN = ("The mitochondrion is the organelle that produces most of the chemical energy of the cell, "
       "stored as adenosine triphosphate, and it carries its own small circular genome. ")

SHORT = [
    ("query", "서울의 인구는 얼마인가?"),
    ("passage", "서울특별시는 대한민국의 수도이자 최대 도시이다."),
    ("query", "광합성은 어디에서 일어나나요?"),
    ("passage", "광합성은 식물 세포의 엽록체에서 빛 에너지를 화학 에너지로 바꾸는 과정이다."),
    ("query", "how much protein should an adult eat per day"),
    ("passage", "Adults are advised to eat about 0.8 grams of protein per kilogram of body weight each day."),
    ("passage", "The Eiffel Tower was completed in 1889 for the World's Fair in Paris."),
    ("raw", "Ünïcödé, full-width ＡＢＣ１２３, tabs\tand  double  spaces, 한국어와 English mixed."),
]
# Past 512 tokens (and mpnet's 384) so truncation is part of the check.
LONG = [("passage", _KO * 20), ("passage", _EN * 25)]


def cases(long: bool = True) -> list:
    return [{"kind": k, "text": t} for k, t in SHORT + (LONG if long else [])]
